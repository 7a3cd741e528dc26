package model

import "strings"

// ARNAccount is the account of an ARN (arn:PARTITION:SERVICE:REGION:ACCOUNT:...),
// "" for a string that is none.
func ARNAccount(arn string) string {
	if parts := strings.SplitN(arn, ":", 6); len(parts) == 6 {
		return parts[4]
	}
	return ""
}

// SameRole says two role ARNs name one role: IAM names a role once in
// an account, so an ARN that holds an IAM path (role/nodes/ng-role) names
// the role its last segment names.
func SameRole(a, b string) bool {
	return ARNAccount(a) != "" && ARNAccount(a) == ARNAccount(b) && RoleNameOf(a) == RoleNameOf(b)
}

// RoleNameOf is the name of the role an ARN names: its last segment,
// after any IAM path.
func RoleNameOf(arn string) string { return arn[strings.LastIndex(arn, "/")+1:] }
