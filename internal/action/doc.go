// Package action holds what each karpgen command does, apart from its
// flags and its printing: the command line binds flags onto an action's
// fields, calls it, and prints what it returns with a printer. Every
// command's work is reachable from here, so a test, a benchmark or
// another front end runs a command the way the command line does.
//
// The pipeline (Check, Result.Render, Compare) is the main job: load the
// profiles, resolve each environment once, lint, and render into a sink.
// The other files are one command or one shared step each: the diff's
// base, workloads placed with Karpenter's scheduler, the import's
// check-and-draft loop, the capture the plans read.
//
// An action never writes to the terminal. It reports a usage mistake as
// a *UsageError and a failure of something outside karpgen (the
// simulator, a file) as a *FailureError; the command line gives each its
// exit code.
package action
