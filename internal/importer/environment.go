package importer

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile/form"
	"github.com/karpgen/karpgen/internal/util/lazyre"
)

var (
	roleARN    = lazyre.New(`^arn:(aws|aws-cn|aws-us-gov):iam::([0-9]{12}):role/(.+)$`)
	clusterARN = lazyre.New(`^arn:(aws|aws-cn|aws-us-gov):eks:([a-z0-9-]+):([0-9]{12}):cluster/(.+)$`)
)

// environment assembles the profile: cluster and Karpenter settings from
// the options and the Helm values, the node group the controller runs
// on, and the node classes and pools read from the manifests.
func (im *importer) environment() (*form.Profile, error) {
	v := im.values
	settings := v.get("settings")
	cluster, irsaRole, err := im.cluster(settings)
	if err != nil {
		return nil, err
	}
	im.version = im.karpenterVersion()
	cluster.KubernetesVersion = im.kubernetesVersion()
	karpenter := &form.Karpenter{Version: im.version, Namespace: orString(im.opts.Namespace, "kube-system"), ServiceAccount: v.get("serviceAccount", "name").str()}
	im.auth(karpenter, cluster, irsaRole)
	roles := im.nodeRolesByUse()
	keep := im.gettingStartedKeeps(cluster.Name, valuesQueue(settings), roles)
	im.queue(karpenter, settings, keep)
	im.adoptNodeRoles(karpenter, roles, keep)
	if keep {
		// The names the bundle gives by default need no saying.
		if karpenter.QueueName == model.DefaultQueue(cluster.Name) {
			karpenter.QueueName = ""
		}
		if karpenter.NodeRole == model.DefaultNodeRole(cluster.Name) {
			karpenter.NodeRole = ""
		}
		gs := im.opts.Captured.GettingStarted
		var held []string
		if gs.Queue != "" {
			held = append(held, "the interruption queue "+gs.Queue)
		}
		if gs.NodeRole != "" {
			held = append(held, "the node role "+gs.NodeRole)
		}
		im.note("keep-stack", diag.Pos{File: gs.File, Line: 1, Col: 1},
			"stack %s (upstream's getting-started template) holds %s: the profile keeps them as the bundle's, not adopted, so the bundle deploys to that stack under upstream's logical IDs and CloudFormation updates it in place, the controller policy included, as upstream's upgrade does; adopting them would deploy the bundle beside it and leave the old policy attached",
			gs.Name, strings.Join(held, " and "))
	}
	im.nodeAccess(karpenter)
	im.readValues(karpenter, settings)
	nodeGroups, err := im.nodeGroups(karpenter)
	if err != nil {
		return nil, err
	}
	return &form.Profile{Cluster: cluster, Karpenter: karpenter, NodeGroups: nodeGroups, NodeClasses: deref(im.classes), NodePools: deref(im.pools)}, nil
}

// cluster is the cluster as the options, the Helm values and the pools'
// zones name it, with the controller's IRSA role if the values give one.
// Every option missing is named at once, not one run at a time.
func (im *importer) cluster(settings node) (*form.Cluster, string, error) {
	o := im.opts
	legacy := settings.get("aws") // settings.aws.* before v1
	var missing []Need
	capt := o.Captured
	if capt == nil {
		capt = &Captured{}
	}
	capRegion, capAccount := "", ""
	if m := clusterARN().FindStringSubmatch(capt.ClusterARN); m != nil {
		capRegion, capAccount = m[2], m[3]
	}
	cluster := orString(o.Cluster, orString(settings.get("clusterName").str(), orString(legacy.get("clusterName").str(), capt.Cluster)))
	// A capture of another cluster would adopt that cluster's roles.
	if capt.Cluster != "" && cluster != capt.Cluster {
		return nil, "", fmt.Errorf("%s: the capture is of cluster %q, the import of cluster %q: capture the cluster the Helm values and options name", capt.File, capt.Cluster, cluster)
	}
	if cluster == "" {
		missing = append(missing, Need{"Cluster", "the cluster name is not in the Helm values"})
	}
	region := orString(o.Region, capRegion)
	if region == "" {
		region = im.regionFromZones()
	}
	if capRegion != "" && region != capRegion {
		return nil, "", fmt.Errorf("%s: the capture's cluster %s is in region %s, the import's in %s", capt.File, capt.ClusterARN, capRegion, region)
	}
	if region == "" {
		missing = append(missing, Need{"Region", "no zone requirement says the region"})
	}
	account := o.Account
	irsaRole := im.values.get("serviceAccount", "annotations", "eks.amazonaws.com/role-arn").str()
	if irsaRole == "" && capt.ServiceAccountRole != "" {
		// eksctl's iamServiceAccounts annotate the service account they
		// make; the chart's values then name no role.
		irsaRole, im.irsaFile = capt.ServiceAccountRole, capt.ServiceAccountFile
	}
	if m := roleARN().FindStringSubmatch(irsaRole); m != nil && account == "" {
		account = m[2]
	}
	account = orString(account, capAccount)
	if capAccount != "" && account != capAccount {
		return nil, "", fmt.Errorf("%s: the capture's cluster %s is in account %s, the import's in %s", capt.File, capt.ClusterARN, capAccount, account)
	}
	if account == "" {
		missing = append(missing, Need{"Account", "the AWS account is not in the Helm values"})
	}
	if len(missing) > 0 {
		return nil, "", &NeedError{Needs: missing}
	}
	if issuer := o.OIDCIssuer; issuer != "" && o.Region == "" {
		if m := issuerRegion().FindStringSubmatch(issuer); m != nil && m[1] != region {
			return nil, "", &NeedError{Needs: []Need{{"Region", fmt.Sprintf("the pools' zones say region %s, the OIDC issuer %s says %s", region, issuer, m[1])}}}
		}
	}
	return &form.Cluster{Name: cluster, Region: region, AccountID: account}, irsaRole, nil
}

// karpenterVersion is the version given, or the newest karpgen knows.
func (im *importer) karpenterVersion() string {
	if im.opts.KarpenterVersion != "" {
		return im.opts.KarpenterVersion
	}
	version := strings.TrimPrefix(facts.Newest().Reference, "v")
	im.note("default-version", im.first, "no Karpenter version given: the profile takes Karpenter %s, the newest karpgen knows; set karpenter.version to the version the cluster will run", version)
	return version
}

// kubernetesVersion is the version given, or else the newest the
// profile's Karpenter and every imported node class run on.
func (im *importer) kubernetesVersion() string {
	if im.opts.KubernetesVersion != "" {
		return im.opts.KubernetesVersion
	}
	if c := im.opts.Captured; c != nil && c.Kubernetes != "" {
		im.note("captured-version", diag.Pos{File: c.File, Line: 1, Col: 1}, "the capture says cluster %s runs Kubernetes %s: the profile says so (cluster.kubernetesVersion)", c.Cluster, c.Kubernetes)
		return c.Kubernetes
	}
	// The version's newest Kubernetes, as far as upstream's matrix
	// confirms it (a range derived from go.mod is not a default).
	kube := facts.ConfirmedKubernetes()
	if rng, ok := model.KubernetesRangeOf(im.version); ok && !facts.MinorLess(kube, rng[1]) {
		kube = rng[1]
	}
	// The newest Kubernetes every imported choice runs on: a node class
	// of an AMI family EKS stops publishing (AL2 after 1.32) holds it
	// back, so that the profile vets.
	for _, family := range slices.Sorted(maps.Keys(im.amiFamilies())) {
		if max, ok := facts.AMIKubernetesMax[family]; ok && facts.MinorLess(max, kube) {
			kube = max
			im.note("default-version", im.first, "node classes use %s AMIs, which EKS publishes up to Kubernetes %s: the profile says %s; move them to al2023@latest to go further", family, max, max)
		}
	}
	// A pinned dated release has no image for a Kubernetes minor released
	// after it: the newest it serves holds the default back too.
	for _, name := range slices.Sorted(maps.Keys(im.classes)) {
		nc := im.classes[name]
		if nc.AMI == nil {
			continue
		}
		was, release := kube, ""
		for {
			day, _, lacks := facts.AMIReleaseLacks(nc.AMI.Alias, kube)
			older, ok := olderMinor(kube)
			if !lacks || !ok {
				break
			}
			kube, release = older, day
		}
		if kube != was {
			im.note("default-version", im.first, "node class %q pins AMI release %s of %s, which has no image for a Kubernetes minor after %s: the profile stays there; pin a newer release to go further", name, nc.AMI.Alias, release, kube)
		}
	}
	im.note("default-version", im.first, "no Kubernetes version given: the profile says Kubernetes %s, the newest Karpenter %s and the imported node classes support; set cluster.kubernetesVersion to the cluster's", kube, im.version)
	return kube
}

// olderMinor is the Kubernetes minor before k ("1.35" before "1.36").
func olderMinor(k string) (string, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(k, "1."))
	if err != nil || n <= 0 {
		return "", false
	}
	return "1." + strconv.Itoa(n-1), true
}

// auth is how the controller authenticates: IRSA with the role the Helm
// values name (which exists, so the profile adopts it), else Pod
// Identity.
func (im *importer) auth(karpenter *form.Karpenter, cluster *form.Cluster, irsaRole string) {
	v := im.values
	if irsaRole == "" {
		karpenter.Auth = "podIdentity"
		if im.adoptAssociation(karpenter) {
			return
		}
		if v.ok() {
			im.note("default-auth", v.pos(), "the Helm values name no IRSA role (serviceAccount.annotations): the profile takes EKS Pod Identity (karpenter.auth); set \"irsa\" if the controller uses IRSA")
		} else {
			im.note("default-auth", im.first, "without the Helm values in use, the controller's credentials are not known: the profile takes EKS Pod Identity (karpenter.auth); set \"irsa\" if the controller uses IRSA")
		}
		return
	}
	karpenter.Auth = "irsa"
	at, named := v.get("serviceAccount", "annotations").pos(), "the Helm values name it"
	if im.irsaFile != "" {
		at, named = diag.Pos{File: im.irsaFile, Line: 1, Col: 1}, "the service account's annotation names it"
	}
	switch c := im.opts.Captured; {
	case im.opts.OIDCIssuer != "":
		cluster.OIDCIssuer = im.opts.OIDCIssuer
	case c != nil && c.OIDCIssuer != "":
		cluster.OIDCIssuer = c.OIDCIssuer
		im.note("oidc-issuer", diag.Pos{File: c.File, Line: 1, Col: 1}, "the controller uses IRSA: the profile takes the cluster's OIDC issuer from the capture (cluster.oidcIssuer)")
	default:
		im.note("oidc-issuer", at, "the controller uses IRSA: set cluster.oidcIssuer")
	}
	if m := roleARN().FindStringSubmatch(irsaRole); m != nil {
		// The role exists: the bundle adopts it rather than create one
		// of the same name. IAM names a role once, whatever its path.
		role := model.RoleNameOf(m[3])
		karpenter.ExistingControllerRole = role
		im.note("adopt-controller-role", at,
			"the controller's role %s exists (%s): the profile adopts it (karpenter.existingControllerRole), so the bundle attaches the controller policies to it and creates no role", role, named)
	}
}

// adoptAssociation adopts the service account's Pod Identity
// association the capture holds, and the role it binds: the
// getting-started guide's eksctl podIdentityAssociations make both, and
// EKS allows no second association for the service account.
func (im *importer) adoptAssociation(karpenter *form.Karpenter) bool {
	c := im.opts.Captured
	if c == nil {
		return false
	}
	sa := orString(karpenter.ServiceAccount, "karpenter")
	for _, a := range c.Associations {
		m := roleARN().FindStringSubmatch(a.RoleARN)
		if a.Namespace != karpenter.Namespace || a.ServiceAccount != sa || m == nil {
			continue
		}
		role := model.RoleNameOf(m[3]) // after an IAM path
		karpenter.ExistingControllerRole, karpenter.ExistingPodIdentityAssociation = role, a.ID
		im.note("adopt-association", diag.Pos{File: a.File, Line: 1, Col: 1},
			"service account %s/%s has Pod Identity association %s, binding role %s: the profile adopts both (karpenter.existingPodIdentityAssociation, karpenter.existingControllerRole), so the bundle attaches the controller policies to that role and creates no second association, which EKS would refuse",
			a.Namespace, a.ServiceAccount, a.ID, role)
		return true
	}
	return false
}

// valuesQueue is the interruption queue the Helm values name, "" for
// none.
func valuesQueue(settings node) string {
	return orString(settings.get("interruptionQueue").str(), settings.get("aws").get("interruptionQueueName").str())
}

// gettingStartedKeeps says whether the bundle takes over upstream's
// getting-started stack rather than deploy beside it: the capture shows
// the stack, and what it holds under upstream's logical IDs is what the
// install uses, the queue the values name and the node role most
// classes name (or the default one, when the classes name none). The
// bundle's template holds them under the same IDs and names, so that
// CloudFormation updates each in place.
func (im *importer) gettingStartedKeeps(cluster, queue string, roles []string) bool {
	c := im.opts.Captured
	if c == nil || c.GettingStarted == nil {
		return false
	}
	gs := c.GettingStarted
	if gs.Queue == "" && gs.NodeRole == "" {
		return false // nothing of the install's to keep: nothing to say
	}
	role := ""
	if len(roles) > 0 {
		role = roles[0]
	}
	switch {
	case queue != gs.Queue:
		return false
	case role != "":
		return role == gs.NodeRole
	default:
		return gs.NodeRole == "" || gs.NodeRole == model.DefaultNodeRole(cluster)
	}
}

// queue is the interruption queue the Helm values name, which exists
// with its rules: the profile adopts it, or, where the getting-started
// stack the bundle takes over holds it, names it as the bundle's own.
// Without one the profile has none, said in a note.
func (im *importer) queue(karpenter *form.Karpenter, settings node, keep bool) {
	queue := valuesQueue(settings)
	karpenter.InterruptionQueue = form.Ptr(queue != "")
	if queue == "" {
		where, why := im.first, "without the Helm values in use, no interruption queue is known"
		if im.values.ok() {
			where, why = im.values.pos(), "the Helm values name no interruption queue"
		}
		im.note("default-queue", where, "%s: the profile has none (karpenter.interruptionQueue: false), so Karpenter does not see spot interruptions or rebalance notices; set it to true to have the bundle create the queue and its rules", why)
		return
	}
	if keep {
		karpenter.QueueName = queue
		return
	}
	karpenter.ExistingInterruptionQueue = queue
	at := settings.get("interruptionQueue").pos()
	if settings.get("interruptionQueue").str() == "" {
		at = settings.get("aws").get("interruptionQueueName").pos()
	}
	im.note("adopt-queue", at, "interruption queue %s exists (the Helm values name it), with its EventBridge rules: the profile adopts it (karpenter.existingInterruptionQueue), so the bundle creates neither", queue)
}

// nodeAccess keeps a cluster that ran Karpenter before v1 on aws-auth:
// such a cluster joined its nodes through the aws-auth ConfigMap and is
// usually in CONFIG_MAP authentication mode, where EKS refuses the
// access entries the bundle would otherwise create (and the IAM stack
// rolls back, mid-migration).
func (im *importer) nodeAccess(karpenter *form.Karpenter) {
	if !im.preV1.IsValid() {
		return
	}
	karpenter.NodeAccess = "awsAuth"
	im.note("node-access", im.preV1,
		"a cluster that ran Karpenter before v1 joins its nodes through aws-auth and is usually in CONFIG_MAP authentication mode, where EKS refuses access entries: the profile maps the node roles in aws-auth (karpenter.nodeAccess: awsAuth); move to accessEntry once aws eks describe-cluster --query cluster.accessConfig says API_AND_CONFIG_MAP or API")
}

// nodeRolesByUse are the roles the node classes name, the one most
// classes name first.
func (im *importer) nodeRolesByUse() []string {
	uses := map[string]int{}
	for _, nc := range im.classes {
		if nc.Role != "" {
			uses[nc.Role]++
		}
	}
	return slices.SortedStableFunc(slices.Values(slices.Sorted(maps.Keys(im.nodeRoles))), func(a, b string) int { return uses[b] - uses[a] })
}

// adoptNodeRoles adopts the roles the node classes name, which exist
// with their access entries, rather than create them again: the role
// most classes name is the environment's, or, where the getting-started
// stack the bundle takes over holds it, the bundle's own by name; each
// other stays with its classes as one of karpenter.nodeRoles.
func (im *importer) adoptNodeRoles(karpenter *form.Karpenter, roles []string, keep bool) {
	if len(roles) == 0 {
		return
	}
	if keep {
		karpenter.NodeRole = roles[0]
	} else {
		karpenter.ExistingNodeRole = roles[0]
		im.note("adopt-node-role", im.nodeRoles[roles[0]],
			"node role %s exists (the node classes name it): the profile adopts it (karpenter.existingNodeRole), so the bundle creates neither it nor its access entry", roles[0])
	}
	for _, r := range roles[1:] {
		if karpenter.NodeRoles == nil {
			karpenter.NodeRoles = map[string]form.KarpenterNodeRole{}
		}
		karpenter.NodeRoles[r] = form.KarpenterNodeRole{Existing: form.Ptr(true)}
		im.note("adopt-node-role", im.nodeRoles[r],
			"node role %s exists (a node class names it): the profile adopts it beside %s (karpenter.nodeRoles), so the controller may pass both and the bundle creates neither it nor its access entry", r, roles[0])
	}
	for _, nc := range im.classes {
		if nc.Role == roles[0] {
			nc.Role = "" // the environment's node role is the default
		}
	}
}

// nodeGroups are the node group the controller runs on, by the Helm
// values' node selector and tolerations, and an untainted one for system
// pods where that group is tainted.
func (im *importer) nodeGroups(karpenter *form.Karpenter) (map[string]form.NodeGroup, error) {
	v := im.values
	// The group the values pin the controller to: by its EKS label in
	// the node selector, or in a required node affinity (the
	// getting-started values' eks.amazonaws.com/nodegroup In [NAME]).
	// Only when neither names one is a name assumed, and said.
	pinned, at := "", v.keyPos("nodeSelector")
	if g := v.get("nodeSelector", "eks.amazonaws.com/nodegroup").str(); g != "" {
		pinned = g
	}
	for _, term := range v.get("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms").list() {
		for _, e := range term.get("matchExpressions").list() {
			if vals := e.get("values").strings(); pinned == "" && e.get("key").str() == "eks.amazonaws.com/nodegroup" && e.get("operator").str() == "In" && len(vals) == 1 {
				pinned, at = vals[0], e.pos()
			}
		}
	}
	group := orString(im.opts.NodeGroup, pinned)
	if c := im.opts.Captured; c != nil && len(c.NodeGroups) > 0 {
		return im.capturedGroups(karpenter, group, at)
	}
	switch {
	case group == "" && !v.ok():
		group = "system"
	case group == "":
		group = "system"
		im.note("controller-group", v.pos(), "the values pin the controller to no managed node group (no eks.amazonaws.com/nodegroup in its node selector or affinity): node group %s stands for it; name the cluster's with --node-group", group)
	case pinned != "" && im.opts.NodeGroup == "":
		im.note("controller-group", at, "the controller runs on node group %s, as its values pin it", group)
	}
	labels := map[string]string{"eks.amazonaws.com/nodegroup": group}
	if sel := v.get("nodeSelector").stringMap(); len(sel) > 0 {
		delete(sel, "kubernetes.io/os")
		if len(sel) > 0 {
			labels = sel
		}
	}
	karpenter.Controller.NodeGroup = group
	groups := map[string]form.NodeGroup{}
	controllerGroup := form.NodeGroup{Labels: labels}
	if t := taints(v.get("tolerations")); len(t) > 0 {
		im.note("controller-tolerations", v.keyPos("tolerations"), "the controller's tolerations are taken as the taints of node group %s; check them", group)
		controllerGroup.Taints = onlyTaints(t)
		// System pods need a group without taints, which the manifests
		// do not show: one stands for it, so that the profile vets.
		system := "system"
		if system == group {
			system = group + "-untainted"
		}
		groups[system] = form.NodeGroup{Labels: map[string]string{"eks.amazonaws.com/nodegroup": system}}
		im.note("system-group", v.keyPos("tolerations"), "node group %s is tainted and the manifests name no untainted group for system pods: node group %s stands for it; give it the labels of the cluster's own", group, system)
	}
	groups[group] = controllerGroup
	return groups, nil
}

// capturedGroups are the cluster's managed node groups as the capture
// shows them, with the labels and taints EKS gives their nodes and, for
// a group of one instance type, that type and the group's desired size,
// as simulate packs them. The controller runs on the group the options
// or the values name, or on the one group there is; among several, none
// is assumed.
func (im *importer) capturedGroups(karpenter *form.Karpenter, group string, at diag.Pos) (map[string]form.NodeGroup, error) {
	captured := im.opts.Captured.NodeGroups
	var names []string
	for _, g := range captured {
		names = append(names, g.Name)
	}
	first := diag.Pos{File: captured[0].File, Line: 1, Col: 1}
	switch {
	case group == "" && len(captured) == 1:
		group = captured[0].Name
		im.note("controller-group", first, "the values pin the controller to no node group and the capture shows one managed node group, %s: the controller runs there", group)
	case group == "":
		return nil, &NeedError{Needs: []Need{{"NodeGroup", "the values pin the controller to no node group, and the capture shows " + strconv.Itoa(len(names)) + " managed node groups: " + strings.Join(names, ", ")}}}
	case !slices.Contains(names, group):
		im.warn("controller-group", at, "the controller's node group %s is none of the managed node groups the capture shows (%s): check its name", group, strings.Join(names, ", "))
	}
	groups := map[string]form.NodeGroup{}
	for _, g := range captured {
		labels := maps.Clone(g.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels["eks.amazonaws.com/nodegroup"] = g.Name // EKS labels every node of a managed group
		ng := form.NodeGroup{Labels: labels, Taints: g.Taints}
		if len(g.InstanceTypes) == 1 {
			ng.InstanceType, ng.Size = g.InstanceTypes[0], form.Ptr(g.Desired)
		}
		groups[g.Name] = ng
	}
	if _, ok := groups[group]; !ok {
		groups[group] = form.NodeGroup{Labels: map[string]string{"eks.amazonaws.com/nodegroup": group}}
	}
	karpenter.Controller.NodeGroup = group
	im.note("captured-groups", first, "the profile's node groups are the cluster's managed node groups the capture shows (%s), with the labels and taints of their nodes, and the instance type and desired size of each group of one type", strings.Join(names, ", "))
	return groups, nil
}

// deref is a map of the structs the importer built, by value.
func deref[T any](m map[string]*T) map[string]T {
	out := make(map[string]T, len(m))
	for k, v := range m {
		out[k] = *v
	}
	return out
}

// readValues carries the chart settings a profile has.
func (im *importer) readValues(karpenter *form.Karpenter, settings node) {
	v := im.values
	controller := &form.Controller{Replicas: intOf(v.get("replicas")), LogLevel: v.get("logLevel").str()}
	if res := v.get("controller", "resources"); res.ok() && len(res.keys()) > 0 {
		im.fill(res, reflect.ValueOf(&controller.Resources).Elem(), "resources", "controller.resources")
	}
	karpenter.Controller = controller
	gates := map[string]bool{}
	fg := settings.get("featureGates")
	_, minor, _ := model.Release(im.version)
	for _, k := range fg.keys() {
		if strings.EqualFold(k, "drift") || strings.EqualFold(k, "driftEnabled") {
			if on, ok := fg.get(k).boolean(); ok && !on {
				im.keepNodesFromDrift(fg.keyPos(k))
				continue
			}
			im.note("drift-gate", fg.keyPos(k), "the drift feature gate is gone in v1 (drift is always on); dropped")
			continue
		}
		if minor != nil && !slices.ContainsFunc(minor.FeatureGates, func(g facts.Gate) bool { return g.Name == k }) {
			// A gate the chart of the profile's version does not have (it
			// ignores it) never enters the profile, which vet would refuse.
			im.note("feature-gate", fg.keyPos(k), "settings.featureGates.%s is not a feature gate of the Karpenter %s chart, which ignores it; dropped", k, minor.Minor)
			continue
		}
		if b, ok := fg.get(k).boolean(); ok {
			gates[k] = b
		}
	}
	if len(gates) > 0 {
		karpenter.FeatureGates = gates
	}
	awsGates := map[string]bool{}
	ag := settings.get("awsFeatureGates")
	for _, k := range ag.keys() {
		if minor != nil && !slices.ContainsFunc(minor.AWSFeatureGates, func(g facts.Gate) bool { return g.Name == k }) {
			im.note("feature-gate", ag.keyPos(k), "settings.awsFeatureGates.%s is not an AWS feature gate of the Karpenter %s chart, which ignores it; dropped", k, minor.Minor)
			continue
		}
		if b, ok := ag.get(k).boolean(); ok {
			awsGates[k] = b
		}
	}
	if len(awsGates) > 0 {
		karpenter.AWSFeatureGates = awsGates
	}
	im.otherSettings(karpenter, settings)
	for _, k := range []string{"assumeRoleARN", "assumeRoleDuration"} {
		if settings.get(k).ok() {
			im.note("setting-removed", settings.keyPos(k), "settings.%s was removed in v1; dropped", k)
		}
	}
	if v.get("logConfig").ok() {
		im.note("setting-removed", v.keyPos("logConfig"), "logConfig was removed in v1 (use logLevel); dropped")
	}
}

// handledSettings are the settings keys read elsewhere or dropped with a
// note of their own.
var handledSettings = []string{"aws", "clusterName", "interruptionQueue", "featureGates", "awsFeatureGates", "assumeRoleARN", "assumeRoleDuration"}

// otherSettings carries enableZonalShift to karpenter.zonalShift and every
// other scalar setting to karpenter.settings, where vet holds it to the
// chart of the profile's version.
func (im *importer) otherSettings(karpenter *form.Karpenter, settings node) {
	carried := map[string]any{}
	for _, k := range settings.keys() {
		if slices.Contains(handledSettings, k) {
			continue
		}
		v := settings.get(k).plain()
		switch v.(type) {
		case map[string]any, []any:
			im.note("setting", settings.keyPos(k), "settings.%s is not a scalar setting of any v1 chart; dropped", k)
			continue
		case nil:
			continue
		}
		if k == "enableZonalShift" {
			if on, ok := v.(bool); ok {
				karpenter.ZonalShift = &on
			} else {
				im.note("setting", settings.keyPos(k), "settings.enableZonalShift is %v, not true or false; dropped", v)
			}
			continue
		}
		// A key the chart of the profile's version does not have (it
		// ignores it) never enters the profile, which vet would refuse.
		if _, m, err := model.Release(im.version); err == nil && m != nil && !m.HasSetting(k) {
			hint := ""
			if k == "interruptionQueueName" {
				hint = " (the queue is karpenter.interruptionQueue, named after the cluster or karpenter.queueName)"
			}
			im.note("setting", settings.keyPos(k), "settings.%s is not a setting of the Karpenter %s chart, which ignores it; dropped%s", k, m.Minor, hint)
			continue
		}
		carried[k] = v
	}
	if len(carried) > 0 {
		karpenter.Settings = carried
	}
}

// issuerRegion finds the region in an EKS OIDC issuer.
var issuerRegion = lazyre.New(`oidc\.eks\.([a-z0-9-]+)\.amazonaws\.com`)

// keepNodesFromDrift carries `featureGates.drift: false` over: v1 has no
// drift gate and drift is always on, so every pool gets a budget that lets
// drift replace no node (beside Karpenter's default budget, which an
// explicit list would otherwise drop).
func (im *importer) keepNodesFromDrift(pos diag.Pos) {
	for _, name := range slices.Sorted(maps.Keys(im.pools)) {
		pool := im.pools[name]
		if pool.Disruption == nil {
			pool.Disruption = &form.NodePoolDisruption{}
		}
		budgets := pool.Disruption.Budgets
		if budgets == nil {
			budgets = []form.Budget{{Nodes: "10%"}}
		}
		pool.Disruption.Budgets = append(budgets, form.Budget{Nodes: "0", Reasons: []string{"Drifted"}})
	}
	im.note("drift-gate", pos, "drift was off, and v1 has no drift gate (drift is always on): every pool gets the budget {nodes: \"0\", reasons: [\"Drifted\"]} so that drift still replaces no node")
}

// regionFromZones takes the region from the pools' zone requirements.
func (im *importer) regionFromZones() string {
	for _, name := range slices.Sorted(maps.Keys(im.pools)) {
		for _, z := range im.pools[name].Zones {
			if r := facts.RegionOfZone(z); r != "" {
				return r
			}
		}
	}
	return ""
}

// onlyTaints keeps the tolerations that name a key and an effect.
func onlyTaints(ts []form.Taint) []form.Taint {
	var out []form.Taint
	for _, t := range ts {
		if t.Key != "" && t.Effect != "" {
			out = append(out, t)
		}
	}
	return out
}

// Need is an option of Options an import needs and was not given (or
// must be given because the inputs disagree), with why.
type Need struct {
	// Option is the field of Options.
	Option string
	Why    string
}

// NeedError names every option an import needs at once.
type NeedError struct{ Needs []Need }

func (e *NeedError) Error() string {
	var parts []string
	for _, n := range e.Needs {
		parts = append(parts, n.Option+" ("+n.Why+")")
	}
	return "the import needs " + strings.Join(parts, ", ")
}

// amiFamilies are the AMI families (as aliases name them) of the
// imported node classes: an alias's, or the amiFamily of selector terms.
func (im *importer) amiFamilies() map[string]bool {
	out := map[string]bool{}
	for _, nc := range im.classes {
		if nc.AMI == nil {
			continue
		}
		if f, _, ok := strings.Cut(nc.AMI.Alias, "@"); ok {
			out[f] = true
		} else if f, ok := aliasFamilies[nc.AMI.Family]; ok {
			out[f] = true
		}
	}
	return out
}
