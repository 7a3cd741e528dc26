package iameval

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// operator is a parsed condition operator.
type operator struct {
	// set is "" or "ForAnyValue" or "ForAllValues".
	set      string
	base     string
	ifExists bool
}

// bases are the operators evaluated, and whether a match of theirs is a
// negation (true when the value matches none of the condition's values).
var bases = map[string]bool{
	"StringEquals": false, "StringNotEquals": true, "StringEqualsIgnoreCase": false, "StringNotEqualsIgnoreCase": true,
	"StringLike": false, "StringNotLike": true,
	"NumericEquals": false, "NumericNotEquals": true, "NumericLessThan": false, "NumericLessThanEquals": false,
	"NumericGreaterThan": false, "NumericGreaterThanEquals": false,
	"DateEquals": false, "DateNotEquals": true, "DateLessThan": false, "DateLessThanEquals": false,
	"DateGreaterThan": false, "DateGreaterThanEquals": false,
	"Bool": false, "IpAddress": false, "NotIpAddress": true,
	"ArnEquals": false, "ArnLike": false, "ArnNotEquals": true, "ArnNotLike": true,
	"Null": false,
}

func parseOperator(op string) (operator, error) {
	var o operator
	rest := op
	if q, r, ok := strings.Cut(op, ":"); ok {
		if q != "ForAnyValue" && q != "ForAllValues" {
			return o, fmt.Errorf("condition operator %q: %q is not a set qualifier", op, q)
		}
		o.set, rest = q, r
	}
	if b, ok := strings.CutSuffix(rest, "IfExists"); ok && b != "" {
		o.base, o.ifExists = b, true
	} else {
		o.base = rest
	}
	if _, ok := bases[o.base]; !ok {
		return o, fmt.Errorf("condition operator %q is not evaluated", op)
	}
	if o.base == "Null" && (o.ifExists || o.set != "") {
		return o, fmt.Errorf("condition operator %q: Null takes no IfExists or set qualifier", op)
	}
	return o, nil
}

// holds evaluates one condition against the request's context.
func (r Request) holds(c Condition) (bool, error) {
	op, err := parseOperator(c.Operator)
	if err != nil {
		return false, err
	}
	values, present := r.lookup(c.Key)
	if op.base == "Null" {
		want := len(c.Values) == 1 && c.Values[0] == "true"
		return want == !present, nil
	}
	// Policy variables in the condition's values (String and Arn
	// operators): a variable the request lacks matches nothing.
	condValues := c.Values
	escaped := !c.Literal && (strings.HasPrefix(op.base, "String") || strings.HasPrefix(op.base, "Arn"))
	if escaped {
		condValues = nil
		for _, v := range c.Values {
			s, ok := r.substitute(v)
			if !ok && bases[op.base] && present {
				// A value the request cannot fill: a negated operator
				// cannot say the request differs from it.
				return false, nil
			}
			if ok {
				condValues = append(condValues, s)
			}
		}
	}
	switch op.set {
	case "ForAllValues":
		if !present {
			return true, nil
		}
		for _, v := range values {
			if !anyMatch(op.base, v, condValues, escaped) {
				return false, nil
			}
		}
		return true, nil
	case "ForAnyValue":
		if !present {
			return false, nil
		}
		for _, v := range values {
			if anyMatch(op.base, v, condValues, escaped) {
				return true, nil
			}
		}
		return false, nil
	}
	if !present {
		// A negated operator holds when the key is absent: nothing in
		// the request matches the values it must not match.
		return op.ifExists || bases[op.base], nil
	}
	// A single-valued operator on the request's value(s): a positive
	// operator holds when a value matches one of the condition's; a
	// negated one when no value matches any of them.
	for _, v := range values {
		if anyMatch(op.base, v, condValues, escaped) {
			return true, nil
		}
	}
	return false, nil
}

// anyMatch: the request value satisfies the operator for the condition's
// values (for a negated operator: matches none of them).
func anyMatch(base, v string, conds []string, escaped bool) bool {
	if bases[base] {
		positive := map[string]string{
			"StringNotEquals": "StringEquals", "StringNotEqualsIgnoreCase": "StringEqualsIgnoreCase", "StringNotLike": "StringLike",
			"NumericNotEquals": "NumericEquals", "DateNotEquals": "DateEquals", "NotIpAddress": "IpAddress",
			"ArnNotEquals": "ArnEquals", "ArnNotLike": "ArnLike",
		}[base]
		for _, c := range conds {
			if match(positive, v, c, escaped) {
				return false
			}
		}
		return true
	}
	for _, c := range conds {
		if match(base, v, c, escaped) {
			return true
		}
	}
	return false
}

// match compares a request value with a condition value, which is in
// glob's escaped form when escaped (the String and Arn operators of a
// policy that has variables).
func match(base, v, c string, escaped bool) bool {
	lit := c
	if escaped {
		lit = unescape(c)
	}
	switch base {
	case "StringEquals":
		return v == lit
	case "StringEqualsIgnoreCase":
		return strings.EqualFold(v, lit)
	case "StringLike":
		return glob(c, v, false, escaped)
	case "Bool":
		return strings.EqualFold(v, c)
	case "ArnEquals", "ArnLike":
		return arnMatch(c, v, escaped)
	case "IpAddress":
		return ipMatch(v, c)
	}
	if strings.HasPrefix(base, "Numeric") {
		a, err1 := strconv.ParseFloat(v, 64)
		b, err2 := strconv.ParseFloat(c, 64)
		return err1 == nil && err2 == nil && compare(strings.TrimPrefix(base, "Numeric"), a, b)
	}
	if strings.HasPrefix(base, "Date") {
		a, ok1 := parseDate(v)
		b, ok2 := parseDate(c)
		return ok1 && ok2 && compare(strings.TrimPrefix(base, "Date"), float64(a.UnixNano()), float64(b.UnixNano()))
	}
	return false
}

func compare(rel string, a, b float64) bool {
	switch rel {
	case "Equals":
		return a == b
	case "LessThan":
		return a < b
	case "LessThanEquals":
		return a <= b
	case "GreaterThan":
		return a > b
	case "GreaterThanEquals":
		return a >= b
	}
	return false
}

func parseDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), true // epoch seconds
	}
	return time.Time{}, false
}

func ipMatch(v, cidr string) bool {
	addr, err := netip.ParseAddr(v)
	if err != nil {
		return false
	}
	if !strings.Contains(cidr, "/") {
		c, err := netip.ParseAddr(cidr)
		return err == nil && c == addr
	}
	p, err := netip.ParsePrefix(cidr)
	return err == nil && p.Contains(addr)
}

// arnMatch compares ARNs part by part (partition, service, region,
// account, resource), each part a wildcard pattern.
func arnMatch(pattern, arn string, escaped bool) bool {
	pp := strings.SplitN(pattern, ":", 6)
	ap := strings.SplitN(arn, ":", 6)
	if len(pp) != 6 || len(ap) != 6 {
		return false
	}
	for i := range pp {
		if !glob(pp[i], ap[i], false, escaped) {
			return false
		}
	}
	return true
}

// glob matches * (any run) and ? (one character), optionally ignoring
// case. An escaped pattern (substitute's form) reads \x as the character
// x: the literal asterisk of ${*} matches only an asterisk.
func glob(pattern, s string, fold, escaped bool) bool {
	if fold {
		pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	}
	p, t := 0, 0
	star, mark := -1, 0
	for t < len(s) {
		literal := escaped && p+1 < len(pattern) && pattern[p] == '\\'
		switch {
		case literal && pattern[p+1] == s[t]:
			p += 2
			t++
		case !literal && p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[t]):
			p++
			t++
		case !literal && p < len(pattern) && pattern[p] == '*':
			star, mark = p, t
			p++
		case star >= 0:
			p = star + 1
			mark++
			t = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
