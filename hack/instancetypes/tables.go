package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Files the tables come from, in the release's tree.
const (
	vpcLimitsFile = "pkg/providers/instancetype/zz_generated.vpclimits.go"
	pricingGlob   = "pkg/providers/pricing/zz_generated.pricing_*.go"
)

// Tables reads a release's tree and returns the data files by name:
// types.tsv (one instance type per line: name, network interfaces, IPv4
// addresses per interface, hypervisor, bare metal), prices.tsv (region,
// instance type, on-demand USD per hour) and SOURCE.
func Tables(src fs.FS, label string) (map[string][]byte, error) {
	limits, err := parse(src, vpcLimitsFile)
	if err != nil {
		return nil, err
	}
	var types strings.Builder
	types.WriteString("# name\tenis\tipv4PerENI\thypervisor\tbareMetal\n")
	rows, err := vpcLimits(limits)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		types.WriteString(strings.Join(r, "\t") + "\n")
	}
	pricingFiles, err := fs.Glob(src, pricingGlob)
	if err != nil || len(pricingFiles) == 0 {
		return nil, fmt.Errorf("no %s: %v", pricingGlob, err)
	}
	var prices []string
	for _, name := range pricingFiles {
		f, err := parse(src, name)
		if err != nil {
			return nil, err
		}
		p, err := onDemandPrices(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		prices = append(prices, p...)
	}
	slices.Sort(prices)
	sourceNote := fmt.Sprintf("# Instance types and on-demand prices of Karpenter's generated tables (Apache-2.0).\n"+
		"# Written by `go run ./hack/instancetypes` from %s; do not edit.\n"+
		"types.tsv <- %s (the VPC limits: every instance type, network interfaces and IPv4 addresses per interface)\n"+
		"prices.tsv <- %s (on-demand prices of one region per partition, as Karpenter starts with them)\n",
		label, vpcLimitsFile, pricingGlob)
	return map[string][]byte{
		"types.tsv":  []byte(types.String()),
		"prices.tsv": []byte("# region\tinstanceType\tusdPerHour\n" + strings.Join(prices, "\n") + "\n"),
		"SOURCE":     []byte(sourceNote),
	}, nil
}

func parse(src fs.FS, name string) (*ast.File, error) {
	data, err := fs.ReadFile(src, name)
	if err != nil {
		return nil, err
	}
	return parser.ParseFile(token.NewFileSet(), path.Base(name), data, parser.SkipObjectResolution)
}

// mapLiteral finds the composite literal a package-level variable holds.
func mapLiteral(f *ast.File, name string) (*ast.CompositeLit, error) {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			v, ok := s.(*ast.ValueSpec)
			if !ok || len(v.Values) != 1 {
				continue
			}
			for _, n := range v.Names {
				if name == "" && strings.HasPrefix(n.Name, "InitialOnDemandPrices") || n.Name == name {
					if lit, ok := v.Values[0].(*ast.CompositeLit); ok {
						return lit, nil
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("no map literal %q", name)
}

func str(e ast.Expr) (string, error) {
	b, ok := e.(*ast.BasicLit)
	if !ok {
		return "", fmt.Errorf("not a literal: %T", e)
	}
	if b.Kind == token.STRING {
		return strconv.Unquote(b.Value)
	}
	return b.Value, nil
}

// vpcLimits reads `var Limits = map[string]*VPCLimits{...}` into rows.
func vpcLimits(f *ast.File) ([][]string, error) {
	lit, err := mapLiteral(f, "Limits")
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, e := range lit.Elts {
		kv := e.(*ast.KeyValueExpr)
		name, err := str(kv.Key)
		if err != nil {
			return nil, err
		}
		fields := map[string]string{}
		for _, fe := range kv.Value.(*ast.CompositeLit).Elts {
			fkv := fe.(*ast.KeyValueExpr)
			key := fkv.Key.(*ast.Ident).Name
			switch v := fkv.Value.(type) {
			case *ast.BasicLit:
				fields[key], _ = str(v)
			case *ast.Ident: // true, false
				fields[key] = v.Name
			}
		}
		for _, k := range []string{"Interface", "IPv4PerInterface", "Hypervisor", "IsBareMetal"} {
			if _, ok := fields[k]; !ok {
				return nil, fmt.Errorf("%s: no %s", name, k)
			}
		}
		rows = append(rows, []string{name, fields["Interface"], fields["IPv4PerInterface"], fields["Hypervisor"], fields["IsBareMetal"]})
	}
	slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return rows, nil
}

// onDemandPrices reads `var InitialOnDemandPrices... = map[string]map[...]float64{region: {type: price}}`.
func onDemandPrices(f *ast.File) ([]string, error) {
	lit, err := mapLiteral(f, "")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range lit.Elts {
		kv := e.(*ast.KeyValueExpr)
		region, err := str(kv.Key)
		if err != nil {
			return nil, err
		}
		for _, pe := range kv.Value.(*ast.CompositeLit).Elts {
			pkv := pe.(*ast.KeyValueExpr)
			name, err := str(pkv.Key)
			if err != nil {
				return nil, err
			}
			price, err := str(pkv.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, region+"\t"+name+"\t"+price)
		}
	}
	return out, nil
}
