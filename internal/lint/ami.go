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

	"github.com/karpgen/karpgen/internal/profile"
)

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
			//lint:ignore ST1005 the message begins with the AMI family's name
			return fmt.Errorf("Bottlerocket userData is not TOML: line %d of userData: %s", pe.Position.Line, pe.Message)
		}
		//lint:ignore ST1005 the message begins with the AMI family's name
		return fmt.Errorf("Bottlerocket userData is not TOML: %v", err)
	}
	return nil
}

// al2023UserData checks AL2023 user data as Karpenter reads it
// (pkg/providers/amifamily/bootstrap, nodeadm.go): text that starts with
// a MIME header is a MIME multi-part document; else YAML that is a map
// is handed to nodeadm as a NodeConfig; anything else is a shell script,
// which Karpenter wraps in the MIME document itself.
func al2023UserData(s string) error {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "MIME-Version:") || strings.HasPrefix(t, "Content-Type:") {
		return mimeMultipart(s)
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil || doc == nil {
		return nil // a shell script
	}
	if doc["kind"] != "NodeConfig" || !strings.HasPrefix(fmt.Sprint(doc["apiVersion"]), "node.eks.aws/") {
		return errors.New("AL2023 userData is YAML, which Karpenter hands to nodeadm as a NodeConfig, but it is not one (apiVersion node.eks.aws/v1alpha1, kind NodeConfig): " +
			"nodeadm fails on it when the node boots")
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
