// Package prefault maps karpgen's own code and read-only data, and the
// start of its heap, into the process in one step, beside package
// initialisation, so that the program does not stop on a page fault at
// each first touch of them.
//
// A command of one environment touches code and tables all over a 35 MB
// binary, and a few megabytes of new heap, one page at a time: on a
// virtual machine each of those faults costs several microseconds, and
// together they were a fifth of a short render. The kernel maps the lot
// in a fraction of that when asked at once (madvise MADV_POPULATE_READ
// and MADV_POPULATE_WRITE, Linux 5.14 and later), and does so on another
// core while the packages initialise. The heap's pages are mapped as the
// first write would map them, zeroed; what the heap holds is untouched,
// and at most 8 MiB more is resident.
//
// cmd/karpgen imports the package for its effect. It imports only
// packages the runtime initialises first, so that its init runs before
// the heavy ones (CUE's, protobuf's, kustomize's). Nothing depends on it:
// where the kernel, /proc or the advice is missing it does nothing.
package prefault

func init() { go populate() }
