package main

import "testing"

// TestNames: labels become Go names with Go's initialisms, and the
// element of a list or map field is named in the singular.
func TestNames(t *testing.T) {
	for label, want := range map[string]string{
		"accountID": "AccountID", "oidcIssuer": "OIDCIssuer", "ids": "IDs", "ami": "AMI", "argocd": "ArgoCD",
		"httpProtocolIPv6": "HTTPProtocolIPv6", "kmsKeyID": "KMSKeyID", "awsFeatureGates": "AWSFeatureGates",
		"os": "OS", "osImage": "OSImage", "idle": "Idle", "instanceCPU": "InstanceCPU", "nodeClass": "NodeClass",
		"ssmParameter": "SSMParameter", "iops": "IOPS", "udpTimeout": "UDPTimeout",
	} {
		if got := goName(label); got != want {
			t.Errorf("goName(%s) = %s, want %s", label, got, want)
		}
	}
	for label, want := range map[string]string{"nodeClasses": "nodeClass", "nodePools": "nodePool", "budgets": "budget", "organization": "organization"} {
		if got := singular(label); got != want {
			t.Errorf("singular(%s) = %s, want %s", label, got, want)
		}
	}
}
