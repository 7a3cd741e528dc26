// Package allocatable holds karpgen's node sizing (internal/facts/instancetypes
// NodeOf, which karpgen simulate places pods on) to the AWS provider's own
// code: its test builds each instance type as the provider's
// instancetype.NewInstanceType does, for settings a team may set, and
// compares what a node offers pods.
package allocatable
