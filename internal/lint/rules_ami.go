package lint

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

var amiRules = []*Rule{
	{
		ID: "value/ami-kubernetes", Severity: diag.Error, Group: "Values",
		Summary: "The AMI family has AMIs for the cluster's Kubernetes version (Amazon Linux 2 has none for 1.33 and later).",
		check: func(c *Context) {
			k := c.P.Cluster.KubernetesVersion
			for _, n := range names(c.P.NodeClasses) {
				a := c.P.NodeClasses[n].AMI
				fam := amiFamily(a)
				if max, ok := facts.AMIKubernetesMax[fam]; ok && facts.MinorLess(max, k) {
					path := at("nodeClasses", field(n), "ami", "family")
					if a.Alias != "" {
						path = at("nodeClasses", field(n), "ami", "alias")
					}
					c.Report(path, "use al2023 (alias \"al2023@latest\"), or keep the cluster on Kubernetes "+max,
						"node class %q uses %s AMIs, which EKS publishes up to Kubernetes %s; the cluster runs %s", n, familyName(fam), max, k)
				}
			}
		},
	},
	{
		ID: "value/user-data", Severity: diag.Error, Group: "Values",
		Summary: "userData is in the form its AMI family reads: TOML for Bottlerocket, MIME multi-part or a nodeadm NodeConfig for AL2023.",
		Hint:    "for AL2023 write a NodeConfig (apiVersion: node.eks.aws/v1alpha1) or a MIME multi-part document; for Bottlerocket, TOML settings",
		check: func(c *Context) {
			for _, n := range names(c.P.NodeClasses) {
				nc := c.P.NodeClasses[n]
				if nc.UserData == "" {
					continue
				}
				var err error
				switch amiFamily(nc.AMI) {
				case "bottlerocket":
					err = bottlerocketUserData(nc.UserData)
				case "al2023":
					err = al2023UserData(nc.UserData)
				}
				if err != nil {
					c.Report(at("nodeClasses", field(n), "userData"), "", "node class %q: %v", n, err)
				}
			}
		},
	},
}

// amiFamily is the lower-case alias family a node class's AMIs belong to
// ("al2023"), from its alias or its ami.family.
func amiFamily(a profile.AMI) string {
	if fam, _, ok := strings.Cut(a.Alias, "@"); ok {
		return strings.ToLower(fam)
	}
	return strings.ToLower(a.Family)
}

func familyName(fam string) string {
	switch fam {
	case "al2":
		return "Amazon Linux 2"
	case "al2023":
		return "AL2023"
	}
	return fam
}

// bottlerocketUserData checks Bottlerocket settings: TOML.
func bottlerocketUserData(s string) error {
	var v map[string]any
	if _, err := toml.Decode(s, &v); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("Bottlerocket userData is not TOML: line %d of userData: %s", pe.Position.Line, pe.Message)
		}
		return fmt.Errorf("Bottlerocket userData is not TOML: %v", err)
	}
	return nil
}

// al2023UserData checks AL2023 user data: a MIME multi-part document, or
// a nodeadm NodeConfig (YAML).
func al2023UserData(s string) error {
	if strings.HasPrefix(strings.TrimSpace(s), "MIME-Version:") || strings.Contains(s, "Content-Type: multipart/") {
		return mimeMultipart(s)
	}
	var doc map[string]any
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(s), &node); err != nil {
		return fmt.Errorf("AL2023 userData is neither MIME multi-part nor a NodeConfig: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := node.Decode(&doc); err != nil || doc["kind"] != "NodeConfig" || !strings.HasPrefix(fmt.Sprint(doc["apiVersion"]), "node.eks.aws/") {
		return errors.New("AL2023 userData is neither MIME multi-part nor a NodeConfig (apiVersion node.eks.aws/v1alpha1, kind NodeConfig): " +
			"nodeadm ignores it; wrap a shell script in a MIME multi-part document")
	}
	return nil
}

func mimeMultipart(s string) error {
	msg, err := mail.ReadMessage(strings.NewReader(s))
	if err != nil {
		return fmt.Errorf("AL2023 userData is not a MIME document: %v", err)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mediaType, "multipart/") || params["boundary"] == "" {
		return fmt.Errorf("AL2023 userData's Content-Type %q is not multipart with a boundary", msg.Header.Get("Content-Type"))
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	parts := 0
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("AL2023 userData: part %d of the MIME document: %v", parts+1, err)
		}
		if _, err := io.Copy(io.Discard, p); err != nil {
			return fmt.Errorf("AL2023 userData: part %d of the MIME document: %v", parts+1, err)
		}
		parts++
	}
	if parts == 0 {
		return errors.New("AL2023 userData: the MIME document has no part (is the closing boundary --BOUNDARY-- there?)")
	}
	return nil
}
