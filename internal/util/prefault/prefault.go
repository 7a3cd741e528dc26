// Package prefault maps karpgen's own code and read-only data into the
// process in one step, beside package initialisation, so that the
// program does not stop on a page fault at each first touch of them.
//
// A command of one environment touches code and tables all over a 35 MB
// binary, one page at a time: on a virtual machine each of those faults
// costs several microseconds, about a tenth of a short render. The
// kernel maps the whole read-only part in a fraction of that when asked
// at once (madvise MADV_POPULATE_READ, Linux 5.14 and later), and does so
// on another core while the packages initialise.
//
// cmd/karpgen imports the package for its effect. It imports only
// packages the runtime initialises first, so that its init runs before
// the heavy ones (CUE's, protobuf's, kustomize's). Nothing depends on it:
// where the kernel, /proc or the advice is missing it does nothing.
package prefault

func init() { go populate() }
