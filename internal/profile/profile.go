// Package profile holds the Go form of a validated karpgen profile. The CUE
// schema in schema/profile.cue is the source of truth: these types only
// decode what it has already checked and defaulted.
package profile

import (
	"encoding/json"
	"maps"
	"reflect"

	"github.com/karpgen/karpgen/internal/util/jsonfields"
)

// Profile is one environment, after unification with the schema.
type Profile struct {
	// Env is the environment name (the key under `environments`).
	Env         string               `json:"-"`
	Cluster     Cluster              `json:"cluster"`
	Karpenter   Karpenter            `json:"karpenter"`
	NodeGroups  map[string]NodeGroup `json:"nodeGroups"`
	NodeClasses map[string]NodeClass `json:"nodeClasses"`
	NodePools   map[string]NodePool  `json:"nodePools"`
	// TimeZone is the IANA zone budget schedules are written in ("" for
	// UTC).
	TimeZone string  `json:"timeZone,omitempty"`
	ArgoCD   *ArgoCD `json:"argocd,omitempty"`
	// NodeOverlays and CapacityBuffers become objects of their own.
	IAM             IAM                       `json:"iam"`
	Guardrails      *Guardrails               `json:"guardrails,omitempty"`
	NodeOverlays    map[string]NodeOverlay    `json:"nodeOverlays"`
	CapacityBuffers map[string]CapacityBuffer `json:"capacityBuffers"`
	Addons          Addons                    `json:"addons"`
}

// Addons says where critical cluster add-ons run.
type Addons struct {
	NodeGroup string   `json:"nodeGroup,omitempty"`
	EKS       []string `json:"eks"`
	Helm      []string `json:"helm"`
}

// Headroom is spare capacity a pool keeps warm.
type Headroom struct {
	Replicas int `json:"replicas"`
	CPU      any `json:"cpu"`
	Memory   any `json:"memory"`
	// Image is "" for the partition's default (model.HeadroomImage).
	Image      string `json:"image,omitempty"`
	OnePerNode bool   `json:"onePerNode"`
}

// ArgoCD is how Argo CD delivers the environment.
type ArgoCD struct {
	RepoURL        string `json:"repoURL"`
	TargetRevision string `json:"targetRevision"`
	Path           string `json:"path"`
	Namespace      string `json:"namespace"`
	Project        string `json:"project,omitempty"`
	// Version is the Argo CD minor the profile states, "" for none.
	// Delivery is "plugin" or "rendered"; Fleet "applications" or
	// "applicationSet"; Charts "helm" or "oci".
	Version     string `json:"version,omitempty"`
	Delivery    string `json:"delivery"`
	Fleet       string `json:"fleet"`
	Charts      string `json:"charts"`
	Destination struct {
		Server string `json:"server,omitempty"`
		Name   string `json:"name,omitempty"`
	} `json:"destination"`
}

// Cluster is the EKS cluster the environment describes.
type Cluster struct {
	Name              string `json:"name"`
	Region            string `json:"region"`
	Partition         string `json:"partition,omitempty"`
	AccountID         string `json:"accountID"`
	KubernetesVersion string `json:"kubernetesVersion"`
	OIDCIssuer        string `json:"oidcIssuer,omitempty"`
	Owners            Owners `json:"owners,omitempty"`
}

// Owners say who owns what the runbooks change where tags do not.
type Owners struct {
	// Terraform names the modules that make the network and node groups;
	// nil when Terraform does not.
	Terraform *TerraformOwner `json:"terraform,omitempty"`
}

// TerraformOwner is the terraform-aws-vpc and terraform-aws-eks module
// blocks of the root module in Dir.
type TerraformOwner struct {
	VPCModule string `json:"vpcModule"`
	EKSModule string `json:"eksModule"`
	Dir       string `json:"dir"`
}

// Karpenter is how Karpenter is installed and authenticates.
type Karpenter struct {
	Version           string `json:"version"`
	Namespace         string `json:"namespace"`
	ServiceAccount    string `json:"serviceAccount"`
	Auth              string `json:"auth"`
	InterruptionQueue bool   `json:"interruptionQueue"`
	QueueName         string `json:"queueName,omitempty"`
	// ExistingInterruptionQueue is an interruption queue the account has,
	// which the bundle adopts instead of creating one.
	ExistingInterruptionQueue string `json:"existingInterruptionQueue,omitempty"`
	NodeRole                  string `json:"nodeRole,omitempty"`
	ExistingNodeRole          string `json:"existingNodeRole,omitempty"`
	ControllerRole            string `json:"controllerRole,omitempty"`
	// ExistingControllerRole is a controller role the account has, which
	// the bundle adopts instead of creating one.
	ExistingControllerRole string `json:"existingControllerRole,omitempty"`
	// ExistingPodIdentityAssociation is the ID of the service account's
	// Pod Identity association, which the bundle adopts instead of
	// creating one.
	ExistingPodIdentityAssociation string `json:"existingPodIdentityAssociation,omitempty"`
	// NodeRoles are node roles beside the environment's, by name.
	NodeRoles    map[string]NodeRole `json:"nodeRoles,omitempty"`
	NodeAccess   string              `json:"nodeAccess"`
	FeatureGates map[string]bool     `json:"featureGates"`
	// AWSFeatureGates are the chart's settings.awsFeatureGates (1.15+).
	AWSFeatureGates map[string]bool `json:"awsFeatureGates,omitempty"`
	ZonalShift      *bool           `json:"zonalShift,omitempty"`
	Settings        map[string]any  `json:"settings,omitempty"`
	Controller      Controller      `json:"controller"`
}

// NodeRole is a node role beside the environment's.
type NodeRole struct {
	// Existing: the account has the role and its access entry.
	Existing bool `json:"existing"`
	// Policies are managed policy ARNs attached beside the version's node
	// policies to a role the bundle creates.
	Policies []string `json:"policies"`
}

// IAM is what the organization requires of the roles the bundle creates.
type IAM struct {
	// PermissionsBoundary is the boundary policy's ARN, "" for none.
	PermissionsBoundary string `json:"permissionsBoundary,omitempty"`
}

// Guardrails are the organization's policy documents, as paths inside the
// profiles folder.
type Guardrails struct {
	Organization            []GuardrailLevel `json:"organization,omitempty"`
	ResourceControlPolicies []string         `json:"resourceControlPolicies,omitempty"`
	PermissionsBoundary     string           `json:"permissionsBoundary,omitempty"`
	OrganizationID          string           `json:"organizationID,omitempty"`
}

// GuardrailLevel is one level of the organization and its SCPs.
type GuardrailLevel struct {
	Name     string   `json:"name"`
	Policies []string `json:"policies"`
}

// Auth modes.
const (
	AuthPodIdentity = "podIdentity"
	AuthIRSA        = "irsa"
)

// Node access modes.
const (
	AccessEntry = "accessEntry"
	AWSAuth     = "awsAuth"
)

// Controller is the Karpenter deployment.
type Controller struct {
	NodeGroup string    `json:"nodeGroup,omitempty"`
	Replicas  int       `json:"replicas"`
	LogLevel  string    `json:"logLevel"`
	Resources Resources `json:"resources"`
}

// Resources are container requests and limits.
type Resources struct {
	Requests map[string]any `json:"requests"`
	Limits   map[string]any `json:"limits"`
}

// Taint is a Kubernetes taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// NodeGroup is an EKS managed node group that Karpenter does not manage.
type NodeGroup struct {
	Labels       map[string]string `json:"labels"`
	Taints       []Taint           `json:"taints"`
	InstanceType string            `json:"instanceType,omitempty"`
	Size         *int              `json:"size,omitempty"`
}

// SelectorTerm selects subnets, security groups or AMIs.
type SelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
	Name string            `json:"name,omitempty"`
}

// AMI selects the node image.
type AMI struct {
	Alias        string            `json:"alias,omitempty"`
	IDs          []string          `json:"ids,omitempty"`
	Names        []string          `json:"names,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`
	SSMParameter string            `json:"ssmParameter,omitempty"`
	Family       string            `json:"family,omitempty"`
}

// MetadataOptions are the instance metadata (IMDS) settings.
type MetadataOptions struct {
	HTTPEndpoint            string `json:"httpEndpoint"`
	HTTPProtocolIPv6        string `json:"httpProtocolIPv6"`
	HTTPPutResponseHopLimit int    `json:"httpPutResponseHopLimit"`
	HTTPTokens              string `json:"httpTokens"`
}

// BlockDevice is one EBS block device mapping.
type BlockDevice struct {
	DeviceName          string `json:"deviceName"`
	VolumeSize          string `json:"volumeSize,omitempty"`
	VolumeType          string `json:"volumeType"`
	IOPS                *int   `json:"iops,omitempty"`
	Throughput          *int   `json:"throughput,omitempty"`
	Encrypted           bool   `json:"encrypted"`
	DeleteOnTermination bool   `json:"deleteOnTermination"`
	KMSKeyID            string `json:"kmsKeyID,omitempty"`
	SnapshotID          string `json:"snapshotID,omitempty"`
	RootVolume          *bool  `json:"rootVolume,omitempty"`
	// VolumeInitializationRate is in MiB/s.
	VolumeInitializationRate *int `json:"volumeInitializationRate,omitempty"`
}

// Kubelet is the kubelet configuration of a node class.
type Kubelet struct {
	ClusterDNS                  []string          `json:"clusterDNS,omitempty"`
	MaxPods                     *int              `json:"maxPods,omitempty"`
	PodsPerCore                 *int              `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]string `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int              `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int              `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int              `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool             `json:"cpuCFSQuota,omitempty"`
	// MaxPodsExpr is maxPods written as an expression (Karpenter 1.15+),
	// evaluated per instance type.
	MaxPodsExpr string `json:"-"`
	// Extra are the other KubeletConfiguration fields (Karpenter 1.15+
	// takes any), as decoded from JSON.
	Extra map[string]any `json:"-"`
}

// UnmarshalJSON reads the typed fields, maxPods as a number or an
// expression, and keeps every other field in Extra.
func (k *Kubelet) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if mp, ok := raw["maxPods"]; ok && len(mp) > 0 && mp[0] == '"' {
		if err := json.Unmarshal(mp, &k.MaxPodsExpr); err != nil {
			return err
		}
		delete(raw, "maxPods")
	}
	known := map[string]json.RawMessage{}
	fields, err := jsonfields.Of(reflect.TypeFor[Kubelet]())
	if err != nil {
		return err
	}
	for _, f := range fields {
		if v, ok := raw[f.Name]; ok {
			known[f.Name] = v
			delete(raw, f.Name)
		}
	}
	b, err := json.Marshal(known)
	if err != nil {
		return err
	}
	type plain Kubelet
	if err := json.Unmarshal(b, (*plain)(k)); err != nil {
		return err
	}
	for name, v := range raw {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return err
		}
		if k.Extra == nil {
			k.Extra = map[string]any{}
		}
		k.Extra[name] = x
	}
	return nil
}

// Fields returns the configuration as the EC2NodeClass's kubelet map.
func (k Kubelet) Fields() map[string]any {
	b, _ := json.Marshal(k)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	if k.MaxPodsExpr != "" {
		out["maxPods"] = k.MaxPodsExpr
	}
	maps.Copy(out, k.Extra)
	return out
}

// NodeClass becomes an EC2NodeClass.
type NodeClass struct {
	AMI             AMI    `json:"ami"`
	Role            string `json:"role,omitempty"`
	InstanceProfile string `json:"instanceProfile,omitempty"`
	// InstanceProfileRole is the role inside InstanceProfile, which the
	// controller passes; not part of the EC2NodeClass.
	InstanceProfileRole        string            `json:"instanceProfileRole,omitempty"`
	SubnetSelectorTerms        []SelectorTerm    `json:"subnetSelectorTerms"`
	SecurityGroupSelectorTerms []SelectorTerm    `json:"securityGroupSelectorTerms"`
	BlockDevices               []BlockDevice     `json:"blockDevices"`
	MetadataOptions            MetadataOptions   `json:"metadataOptions"`
	Tags                       map[string]string `json:"tags"`
	UserData                   string            `json:"userData,omitempty"`
	DetailedMonitoring         *bool             `json:"detailedMonitoring,omitempty"`
	AssociatePublicIPAddress   *bool             `json:"associatePublicIPAddress,omitempty"`
	InstanceStorePolicy        string            `json:"instanceStorePolicy,omitempty"`
	Kubelet                    *Kubelet          `json:"kubelet,omitempty"`
	PodsUseIMDS                bool              `json:"podsUseIMDS,omitempty"`

	CapacityReservationSelectorTerms []CapacityReservationTerm `json:"capacityReservationSelectorTerms,omitempty"`
	IPPrefixCount                    *int                      `json:"ipPrefixCount,omitempty"`
	NetworkInterfaces                []NetworkInterface        `json:"networkInterfaces,omitempty"`
	PlacementGroupSelector           map[string]string         `json:"placementGroupSelector,omitempty"`
	CPUOptions                       map[string]string         `json:"cpuOptions,omitempty"`
	ConnectionTracking               map[string]int            `json:"connectionTracking,omitempty"`
	EnclaveOptions                   *EnclaveOptions           `json:"enclaveOptions,omitempty"`
}

// EnclaveOptions turns Nitro Enclaves on or off.
type EnclaveOptions struct {
	Enabled bool `json:"enabled"`
}

// CapacityReservationTerm selects capacity reservations.
type CapacityReservationTerm struct {
	ID                    string            `json:"id,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty"`
	Tags                  map[string]string `json:"tags,omitempty"`
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty"`
}

// NetworkInterface is one network interface of an instance.
type NetworkInterface struct {
	NetworkCardIndex int    `json:"networkCardIndex"`
	DeviceIndex      int    `json:"deviceIndex"`
	InterfaceType    string `json:"interfaceType"`
}

// NodeOverlay changes what Karpenter assumes of instance types.
type NodeOverlay struct {
	Requirements    []Requirement  `json:"requirements"`
	Price           string         `json:"price,omitempty"`
	PriceAdjustment string         `json:"priceAdjustment,omitempty"`
	Capacity        map[string]any `json:"capacity,omitempty"`
	Weight          *int           `json:"weight,omitempty"`
}

// CapacityBuffer keeps capacity ready for a workload's pods.
type CapacityBuffer struct {
	Namespace   string `json:"namespace"`
	PodTemplate string `json:"podTemplate,omitempty"`
	Scalable    *struct {
		APIGroup string `json:"apiGroup"`
		Kind     string `json:"kind"`
		Name     string `json:"name"`
	} `json:"scalable,omitempty"`
	Replicas   *int           `json:"replicas,omitempty"`
	Percentage *int           `json:"percentage,omitempty"`
	Limits     map[string]any `json:"limits,omitempty"`
}

// Requirement is a NodePool scheduling requirement.
type Requirement struct {
	Key       string   `json:"key"`
	Operator  string   `json:"operator"`
	Values    []string `json:"values,omitempty"`
	MinValues *int     `json:"minValues,omitempty"`
}

// Budget is a NodePool disruption budget.
type Budget struct {
	Nodes    string   `json:"nodes"`
	Schedule string   `json:"schedule,omitempty"`
	Duration string   `json:"duration,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
}

// Disruption is how Karpenter may disrupt a pool's nodes.
type Disruption struct {
	ConsolidationPolicy string   `json:"consolidationPolicy"`
	ConsolidateAfter    string   `json:"consolidateAfter"`
	Budgets             []Budget `json:"budgets"`
}

// NodePool becomes a NodePool.
type NodePool struct {
	NodeClass               string            `json:"nodeClass"`
	Labels                  map[string]string `json:"labels"`
	Annotations             map[string]string `json:"annotations"`
	Taints                  []Taint           `json:"taints"`
	StartupTaints           []Taint           `json:"startupTaints"`
	Arch                    []string          `json:"arch"`
	OS                      []string          `json:"os"`
	CapacityTypes           []string          `json:"capacityTypes"`
	InstanceCategories      []string          `json:"instanceCategories,omitempty"`
	InstanceFamilies        []string          `json:"instanceFamilies,omitempty"`
	InstanceGenerations     []int             `json:"instanceGenerations,omitempty"`
	InstanceGenerationAbove *int              `json:"instanceGenerationAbove,omitempty"`
	InstanceCPU             []int             `json:"instanceCPU,omitempty"`
	InstanceSizes           []string          `json:"instanceSizes,omitempty"`
	InstanceTypes           []string          `json:"instanceTypes,omitempty"`
	Zones                   []string          `json:"zones,omitempty"`
	Requirements            []Requirement     `json:"requirements"`
	Limits                  map[string]any    `json:"limits"`
	Weight                  *int              `json:"weight,omitempty"`
	Replicas                *int              `json:"replicas,omitempty"`
	Disruption              Disruption        `json:"disruption"`
	ExpireAfter             string            `json:"expireAfter"`
	TerminationGracePeriod  string            `json:"terminationGracePeriod,omitempty"`
	Headroom                *Headroom         `json:"headroom,omitempty"`
}
