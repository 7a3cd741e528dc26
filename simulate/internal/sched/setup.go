package sched

import (
	"flag"
	"io"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/operator/options"

	simulate "github.com/karpgen/karpgen/internal/simulate/wire"
)

// start sets what Karpenter's process holds for the request (no logs,
// the provider's well-known labels and extended resources) and reads
// its pools and instance types: by pool, and all of them once. A node
// class's instance types are one list, whichever pools use it, as the
// provider caches them per node class.
func start(req *simulate.Request) (pools []*karpv1.NodePool, its map[string][]*cloudprovider.InstanceType, all []*cloudprovider.InstanceType, err error) {
	ctrllog.SetLogger(logr.Discard())
	karpv1.WellKnownLabels = karpv1.WellKnownLabels.Insert(req.WellKnownLabels...)
	karpv1.WellKnownResources.Insert(awsResources...)
	if pools, err = nodePools(req.NodePools); err != nil {
		return nil, nil, nil, err
	}
	byClass := map[string][]*cloudprovider.InstanceType{}
	its = map[string][]*cloudprovider.InstanceType{}
	for _, np := range pools {
		class := np.Spec.Template.Spec.NodeClassRef.Name
		if _, done := byClass[class]; !done {
			for _, w := range req.InstanceTypes[class] {
				it, err := instanceType(w, req.WellKnownLabels)
				if err != nil {
					return nil, nil, nil, err
				}
				byClass[class] = append(byClass[class], it)
			}
			all = append(all, byClass[class]...)
		}
		its[np.Name] = byClass[class]
	}
	return pools, its, all, nil
}

// karpenterOptions are Karpenter's defaults with args (the flags the
// profile sets), the rest unset (karpgen runs this binary with an empty
// environment, so no variable of the caller's changes the scheduling).
func karpenterOptions(args ...string) (*options.Options, error) {
	opts := &options.Options{}
	fs := &options.FlagSet{FlagSet: flag.NewFlagSet("karpenter", flag.ContinueOnError)}
	fs.SetOutput(io.Discard)
	opts.AddFlags(fs)
	if err := opts.Parse(fs, args...); err != nil {
		return nil, err
	}
	return opts, nil
}
