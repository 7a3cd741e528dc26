// Command karpgen-simulate runs Karpenter's scheduling simulation for
// `karpgen simulate`: it reads a request (package internal/simulate of
// karpgen) on its standard input and writes where each workload lands,
// as JSON, on its standard output; for a request with a captured
// cluster, what Karpenter's disruption controller would do with it. It is a binary of its own so that
// karpgen's does not carry Karpenter's controller libraries.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
	"github.com/karpgen/karpgen/simulate/internal/sched"
)

// maxRequest bounds what is read: the environment and the workloads
// karpgen read under its own limits, or a capture's objects (its pods
// alone up to 512 MiB).
const maxRequest = 768 << 20

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: karpgen-simulate < request.json (karpgen simulate runs it)")
		os.Exit(2)
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, maxRequest+1))
	if err == nil && len(data) > maxRequest {
		err = fmt.Errorf("the request is larger than %d bytes", maxRequest)
	}
	var req simulate.Request
	if err == nil {
		err = json.Unmarshal(data, &req)
	}
	if err == nil && req.Protocol != simulate.Protocol {
		err = fmt.Errorf("the request speaks %q, this karpgen-simulate %q: run the karpgen and karpgen-simulate of one release", req.Protocol, simulate.Protocol)
	}
	var resp *simulate.Response
	switch {
	case err != nil:
	case req.Cluster != nil:
		var d *simulate.Disruption
		if d, err = sched.Disrupt(&req); err == nil {
			resp = &simulate.Response{Workloads: []simulate.Placement{}, Nodes: []simulate.Node{}, Disruption: d}
		}
	default:
		resp, err = sched.Run(&req)
	}
	if err == nil {
		resp.Protocol = simulate.Protocol
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpgen-simulate:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(resp); err != nil {
		fmt.Fprintln(os.Stderr, "karpgen-simulate:", err)
		os.Exit(1)
	}
}
