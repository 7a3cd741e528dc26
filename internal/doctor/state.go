package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/util/safefs"
)

// State is a captured folder: the files it holds, read lazily.
type State struct {
	fsys fs.FS
	// Name is the folder as the user named it, for messages.
	Name string
	// files holds each file once read: Run looks for a check's files,
	// then the check reads them (a whole cluster's CRD list among them).
	files map[string]readResult
}

type readResult struct {
	data []byte
	err  error
}

// NewState reads a captured folder.
func NewState(fsys fs.FS, name string) *State {
	return &State{fsys: fsys, Name: name, files: map[string]readResult{}}
}

// StateError is a file of the folder that cannot be read as what the
// capture writes: exit 1, naming the file and the JSON path.
type StateError struct {
	File, Path, Reason string
}

func (e *StateError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("%s: %s: %s", e.File, e.Path, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

// MaxStateFile bounds a captured file: a whole cluster's CRD list is a
// few tens of megabytes; a larger file is refused, not read.
const MaxStateFile = 64 << 20

// MaxPodsFile bounds the capture's pods: kubectl prints a pod in 5 to
// 20 KiB, so 10,000 of them pass MaxStateFile.
const MaxPodsFile = 512 << 20

// maxOf is the bound of a captured file.
func maxOf(file string) int64 {
	if file == live.FilePods {
		return MaxPodsFile
	}
	return MaxStateFile
}

// readFile reads a captured file that is a regular file of the folder
// (not a link, a folder, a pipe or a device) and not larger than
// MaxStateFile. Anything else is a *StateError: never skipped, never
// read (a pipe would block, a link would read the host).
func (s *State) readFile(file string) ([]byte, error) {
	if r, ok := s.files[file]; ok {
		return r.data, r.err
	}
	data, err := s.readOnce(file)
	s.files[file] = readResult{data, err}
	return data, err
}

func (s *State) readOnce(file string) ([]byte, error) {
	data, err := safefs.ReadFS(s.fsys, file, maxOf(file))
	var le *safefs.LinkError
	var se *safefs.SizeError
	switch {
	case err == nil || errors.Is(err, fs.ErrNotExist):
		return data, err
	case errors.As(err, &le):
		return nil, &StateError{File: file, Reason: "is " + le.What + ", not a file the capture writes; doctor reads only regular files"}
	case errors.As(err, &se):
		return nil, &StateError{File: file, Reason: fmt.Sprintf("is %d bytes, more than a capture writes (%d): not read", se.Size, se.Max)}
	}
	return nil, &StateError{File: file, Reason: err.Error()}
}

// captureError is what the capture writes when a command failed.
type captureError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// read decodes a file into v. found is false when the file was not
// captured; failed is the command's error when it failed.
func (s *State) read(file string, v any) (found bool, failed *captureError, err error) {
	data, err := s.readFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	var probe struct {
		Error *captureError `json:"error"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return true, nil, &StateError{File: file, Reason: fmt.Sprintf("not JSON at byte %d: %v", se.Offset, err)}
		}
	}
	if probe.Error != nil {
		if probe.Error.Code == "" {
			return true, nil, &StateError{File: file, Path: "error.code", Reason: "an error without a code"}
		}
		return true, probe.Error, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return true, nil, &StateError{File: file, Path: te.Field, Reason: fmt.Sprintf("expected %s, found %s", jsonKind(te.Type), jsonValue(te.Value))}
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return true, nil, &StateError{File: file, Reason: fmt.Sprintf("not JSON at byte %d: %v", se.Offset, err)}
		}
		return true, nil, &StateError{File: file, Reason: err.Error()}
	}
	return true, nil, nil
}

// The files, as the AWS CLI and kubectl print them (only the fields the
// checks read).

type eksCluster struct {
	Cluster struct {
		Name               string `json:"name"`
		Arn                string `json:"arn"`
		Version            string `json:"version"`
		Endpoint           string `json:"endpoint"`
		ResourcesVpcConfig struct {
			VpcID                  string `json:"vpcId"`
			ClusterSecurityGroupID string `json:"clusterSecurityGroupId"`
		} `json:"resourcesVpcConfig"`
		Identity struct {
			OIDC struct {
				Issuer string `json:"issuer"`
			} `json:"oidc"`
		} `json:"identity"`
		// AccessConfig.AuthenticationMode is CONFIG_MAP, API or
		// API_AND_CONFIG_MAP; an AWS CLI older than access entries
		// prints none.
		AccessConfig struct {
			AuthenticationMode string `json:"authenticationMode"`
		} `json:"accessConfig"`
	} `json:"cluster"`
}

// kubeConfig is `kubectl config view --minify`: the cluster the current
// context points at.
type kubeConfig struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server string `json:"server"`
		} `json:"cluster"`
	} `json:"clusters"`
}

type awsTag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// tagMap is a list of EC2 tags as a map.
func tagMap(tags []awsTag) map[string]string {
	out := map[string]string{}
	for _, t := range tags {
		out[t.Key] = t.Value
	}
	return out
}

type ec2Subnets struct {
	Subnets []struct {
		SubnetID                string   `json:"SubnetId"`
		VpcID                   string   `json:"VpcId"`
		AvailabilityZone        string   `json:"AvailabilityZone"`
		AvailableIPAddressCount int      `json:"AvailableIpAddressCount"`
		Tags                    []awsTag `json:"Tags"`
	} `json:"Subnets"`
}

type ec2SecurityGroups struct {
	SecurityGroups []struct {
		GroupID     string   `json:"GroupId"`
		GroupName   string   `json:"GroupName"`
		Description string   `json:"Description"`
		Tags        []awsTag `json:"Tags"`
	} `json:"SecurityGroups"`
}

type iamRole struct {
	Role struct {
		RoleName                 string         `json:"RoleName"`
		Arn                      string         `json:"Arn"`
		AssumeRolePolicyDocument map[string]any `json:"AssumeRolePolicyDocument"`
	} `json:"Role"`
}

type iamAttached struct {
	AttachedPolicies []struct {
		PolicyName string `json:"PolicyName"`
		PolicyArn  string `json:"PolicyArn"`
	} `json:"AttachedPolicies"`
}

type iamPolicyVersion struct {
	PolicyVersion struct {
		Document         map[string]any `json:"Document"`
		VersionID        string         `json:"VersionId"`
		IsDefaultVersion bool           `json:"IsDefaultVersion"`
	} `json:"PolicyVersion"`
}

type iamOIDCProviders struct {
	OpenIDConnectProviderList []struct {
		Arn string `json:"Arn"`
	} `json:"OpenIDConnectProviderList"`
}

type eksAccessEntry struct {
	AccessEntry struct {
		PrincipalArn string `json:"principalArn"`
		Type         string `json:"type"`
	} `json:"accessEntry"`
}

type eksPodIdentityAssociations struct {
	Associations []struct {
		ID             string `json:"associationId"`
		Namespace      string `json:"namespace"`
		ServiceAccount string `json:"serviceAccount"`
	} `json:"associations"`
}

type eksAddons struct {
	Addons []string `json:"addons"`
}

// roleDetails is get-account-authorization-details for one role: its
// inline and attached policies, and the account's customer managed
// policies with their versions.
type roleDetails struct {
	Roles []struct {
		RoleName       string `json:"RoleName"`
		RolePolicyList []struct {
			PolicyName     string          `json:"PolicyName"`
			PolicyDocument json.RawMessage `json:"PolicyDocument"`
		} `json:"RolePolicyList"`
		AttachedManagedPolicies []struct {
			PolicyName string `json:"PolicyName"`
			PolicyArn  string `json:"PolicyArn"`
		} `json:"AttachedManagedPolicies"`
	} `json:"Roles"`
	Policies []struct {
		PolicyName        string `json:"PolicyName"`
		Arn               string `json:"Arn"`
		PolicyVersionList []struct {
			Document         json.RawMessage `json:"Document"`
			IsDefaultVersion bool            `json:"IsDefaultVersion"`
		} `json:"PolicyVersionList"`
	} `json:"Policies"`
}

type sqsQueue struct {
	Attributes map[string]string `json:"Attributes"`
}

type eventsRules struct {
	Rules []struct {
		Name         string `json:"Name"`
		Arn          string `json:"Arn"`
		EventPattern string `json:"EventPattern"`
		State        string `json:"State"`
	} `json:"Rules"`
}

type k8sList struct {
	Items []k8sObject `json:"items"`
}

type k8sObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Versions []struct {
			Name    string `json:"name"`
			Served  bool   `json:"served"`
			Storage bool   `json:"storage"`
		} `json:"versions"`
	} `json:"spec"`
	Status struct {
		StoredVersions []string `json:"storedVersions"`
		Conditions     []struct {
			Type    string `json:"type"`
			Status  string `json:"status"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"conditions"`
	} `json:"status"`
	Webhooks []struct {
		Name         string `json:"name"`
		ClientConfig struct {
			Service *struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"service"`
		} `json:"clientConfig"`
	} `json:"webhooks"`
}

type k8sDeployment struct {
	Spec struct {
		Replicas *int `json:"replicas"`
		Template struct {
			Spec struct {
				Containers []struct {
					Name  string `json:"name"`
					Image string `json:"image"`
					Env   []struct {
						Name  string `json:"name"`
						Value string `json:"value"`
					} `json:"env"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// tagsMatch reports whether tags hold every wanted tag ("*" matches any
// value), as Karpenter matches selector terms.
func tagsMatch(tags []awsTag, want map[string]string) bool {
	for k, v := range want {
		ok := false
		for _, t := range tags {
			if t.Key == k && (v == "*" || t.Value == v) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func tagsText(want map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		parts = append(parts, k+"="+want[k])
	}
	return strings.Join(parts, ",")
}

// jsonKind says what JSON value a Go type reads, in the file's terms
// rather than the reader's.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another value"
}

// jsonValue names the kind of JSON value the decoder found ("string",
// "number", "object", "array", "bool" or a number's text).
func jsonValue(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	}
	return "a number"
}
