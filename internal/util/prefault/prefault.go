// Package prefault maps karpgen's own code and read-only data, and its
// heap as the heap grows, into the process in one step each, on another
// core, so that the program does not stop on a page fault at each first
// touch of them.
//
// A command of one environment touches code and tables all over a 35 MB
// binary, and several megabytes of new heap, one page at a time: on a
// virtual machine each of those faults costs several microseconds (12 on
// the machine of docs/performance.md), and together they were a fifth of
// a short render. The kernel maps the lot in a fraction of that when
// asked at once (madvise MADV_POPULATE_READ and MADV_POPULATE_WRITE,
// Linux 5.14 and later). The code is mapped beside package
// initialisation; the heap's first mapping then, and each 4 MiB chunk the
// runtime adds to it as soon as it appears. The heap's pages are mapped as
// the first write would map them, zeroed; what the heap holds is
// untouched, and at most the chunk the runtime last mapped is resident
// before it is used.
//
// cmd/karpgen imports the package for its effect. It imports only
// packages the runtime initialises first, so that its init runs before
// the heavy ones (CUE's, protobuf's, kustomize's). Nothing depends on it:
// where the kernel, /proc or the advice is missing it does nothing.
package prefault

func init() { go populate() }
