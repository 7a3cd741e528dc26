// Package action holds what each karpgen command does, apart from its
// flags and its printing: the command line binds flags onto an action's
// fields, calls it, and prints what it returns with a printer. Every
// command's work is reachable from here, so a test, a benchmark or
// another front end runs a command the way the command line does.
//
// The pipeline (Check, Result.Render, Compare) is the main job: load the
// profiles, resolve each environment once, lint, and render into a sink.
// The other files are one command or one shared step each: render and
// build, vet, the diff and its base, the plans, import's check-and-draft
// loop, init, workloads placed with Karpenter's scheduler, the capture
// the plans and doctor read, the version.
//
// An action prints nothing of its own: it returns values for a printer,
// and writes only to the writers it is given where its output is a
// stream (the sink's report of what render wrote, build's objects). It
// reports a usage mistake as a *UsageError, an option a plan refuses as
// an *OptionError, profiles that do not vet as an *InvalidError, a
// failure of something outside karpgen (the simulator, a workload file)
// as a *FailureError, and a difference found as a *FoundError; the
// command line gives each its exit code.
package action
