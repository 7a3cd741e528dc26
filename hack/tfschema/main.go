// Command tfschema derives the part of the Terraform AWS provider's schema
// that karpgen's Terraform module uses, in the format of `tofu providers
// schema -json`, from the prebuilt provider package of CDK for Terraform
// (npm @cdktf/provider-aws, archived) or of its community successor, CDK
// Terrain (@cdktn/provider-aws, the same layout with its classes based on
// cdktn.* instead of cdktf.*). That package is generated from the
// provider's own schema: its config structs (.jsii) say which arguments
// a resource takes and which are required, its code says each argument's
// Terraform name, type and nesting, and its getters name what the
// provider computes. The module proxy does not serve the provider's Go
// module, so this is the provider's schema at hand.
//
//	go run ./hack/tfschema -package DIR -o reference/terraform/aws.json TYPE...
//
// DIR is the unpacked package (npm pack @cdktn/provider-aws@V; tar xzf).
// A TYPE is a resource type, or data.TYPE for a data source.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	dir := flag.String("package", "", "the unpacked @cdktn/provider-aws (or @cdktf/provider-aws) package")
	out := flag.String("o", "", "the schema file to write")
	flag.Parse()
	if *dir == "" || *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: tfschema -package DIR -o FILE TYPE...")
		os.Exit(2)
	}
	if err := run(*dir, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "tfschema:", err)
		os.Exit(1)
	}
}

// jsiiType is what the assembly says of a class or struct.
type jsiiType struct {
	Kind       string `json:"kind"`
	Base       string `json:"base"`
	Properties []struct {
		Name     string          `json:"name"`
		Optional bool            `json:"optional"`
		Type     json.RawMessage `json:"type"`
	} `json:"properties"`
	Initializer struct {
		Parameters []struct {
			Name string `json:"name"`
			Type struct {
				FQN string `json:"fqn"`
			} `json:"type"`
		} `json:"parameters"`
	} `json:"initializer"`
}

type deriver struct {
	dir     string
	types   map[string]jsiiType
	version string
	// pkg is the package's name (@cdktn/provider-aws), ns the namespace
	// of the library its classes extend (cdktn, or cdktf for the
	// archived @cdktf packages).
	pkg, ns string
}

func run(dir, out string, names []string) error {
	raw, err := os.ReadFile(filepath.Join(dir, ".jsii"))
	if err != nil {
		return err
	}
	var asm struct {
		Types map[string]jsiiType `json:"types"`
	}
	if err := json.Unmarshal(raw, &asm); err != nil {
		return fmt.Errorf(".jsii: %w", err)
	}
	var manifest struct {
		Name string `json:"name"`
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "package.json")); err != nil {
		return err
	} else if err := json.Unmarshal(raw, &manifest); err != nil {
		return fmt.Errorf("package.json: %w", err)
	}
	scope, _, _ := strings.Cut(strings.TrimPrefix(manifest.Name, "@"), "/")
	if scope != "cdktf" && scope != "cdktn" {
		return fmt.Errorf("package.json names %q, not @cdktn/provider-aws or @cdktf/provider-aws", manifest.Name)
	}
	d := &deriver{dir: dir, types: asm.Types, pkg: manifest.Name, ns: scope}
	resources, data := map[string]any{}, map[string]any{}
	for _, name := range names {
		into, typ := resources, name
		rest, isData := strings.CutPrefix(name, "data.")
		if isData {
			into, typ = data, rest
		}
		block, err := d.schema(typ, isData)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		into[typ] = map[string]any{"version": 0, "block": block}
	}
	doc := map[string]any{
		"format_version": "1.0",
		"provider_schemas": map[string]any{
			"registry.opentofu.org/hashicorp/aws": map[string]any{
				"provider":            map[string]any{"version": 0, "block": map[string]any{}},
				"resource_schemas":    resources,
				"data_source_schemas": data,
			},
		},
		"//": "derived by hack/tfschema from " + d.pkg + ", made from hashicorp/aws " + d.version,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

// schema is the block of one resource type or data source.
func (d *deriver) schema(typ string, data bool) (map[string]any, error) {
	rest, ok := strings.CutPrefix(typ, "aws_")
	if !ok {
		return nil, fmt.Errorf("not an aws type")
	}
	folder := strings.ReplaceAll(rest, "_", "-")
	if data {
		folder = "data-aws-" + folder
	}
	src, err := os.ReadFile(filepath.Join(d.dir, "lib", folder, "index.js"))
	if err != nil {
		return nil, err
	}
	js := string(src)
	if m := regexp.MustCompile(`providerVersion: '([^']+)'`).FindStringSubmatch(js); m != nil {
		if d.version != "" && d.version != m[1] {
			return nil, fmt.Errorf("provider version %s beside %s", m[1], d.version)
		}
		d.version = m[1]
	}
	if !strings.Contains(js, "terraformResourceType: '"+typ+"'") {
		return nil, fmt.Errorf("lib/%s/index.js is not of %s", folder, typ)
	}
	class := ""
	for fqn, t := range d.types {
		if t.Kind == "class" && strings.HasSuffix(fqn, "."+jsName(folder, true)) && (t.Base == d.ns+".TerraformResource" || t.Base == d.ns+".TerraformDataSource") {
			class = fqn
		}
	}
	if class == "" {
		return nil, fmt.Errorf("no class %s in .jsii", jsName(folder, true))
	}
	config := ""
	for _, p := range d.types[class].Initializer.Parameters {
		if p.Name == "config" {
			config = p.Type.FQN
		}
	}
	body := method(js, "synthesizeHclAttributes() {")
	if body == "" {
		return nil, fmt.Errorf("no synthesizeHclAttributes in lib/%s/index.js", folder)
	}
	block, err := d.block(js, body, config)
	if err != nil {
		return nil, err
	}
	// What the provider computes: the class's getters of a plain value
	// that no argument sets.
	attrs := block["attributes"].(map[string]any)
	blocks := block["block_types"].(map[string]any)
	classBody := method(js, "class "+jsName(folder, true)+" extends "+d.ns+".Terraform")
	if classBody == "" {
		return nil, fmt.Errorf("no class %s in lib/%s/index.js", jsName(folder, true), folder)
	}
	for _, m := range getterRE.FindAllStringSubmatch(classBody, -1) {
		name, kind := m[3], m[2]
		if _, ok := attrs[name]; ok {
			continue
		}
		if _, ok := blocks[name]; ok {
			continue
		}
		t, ok := getterTypes[kind]
		if !ok {
			continue
		}
		attrs[name] = map[string]any{"type": t, "computed": true}
	}
	return block, nil
}

var (
	getterRE = regexp.MustCompile(`get (\w+)\(\) \{\s*return this\.get(\w+)Attribute\('(\w+)'\);`)
	entryRE  = regexp.MustCompile(`(?s)(\w+): \{\s*value: ([^\n]*),\s*isBlock: (true|false),\s*type: "(\w+)",\s*storageClassType: "(\w+)",\s*\}`)
	fieldRE  = regexp.MustCompile(`(?:this\._|struct\.|struct\[")(\w+)`)
)

// getterTypes are the types of the computed values a getter reads.
var getterTypes = map[string]any{
	"String":     "string",
	"Number":     "number",
	"Boolean":    "bool",
	"List":       []any{"list", "string"},
	"NumberList": []any{"list", "number"},
	"StringMap":  []any{"map", "string"},
	"NumberMap":  []any{"map", "number"},
	"BooleanMap": []any{"map", "bool"},
}

var storageTypes = map[string]any{
	"string": "string", "number": "number", "boolean": "bool",
	"stringList": "string", "numberList": "number", "booleanList": "bool",
	"stringMap": "string", "numberMap": "number", "booleanMap": "bool",
}

// block reads the attrs object of a synthesizeHclAttributes method or a
// struct's ToHclTerraform function, with the config struct it maps.
func (d *deriver) block(js, body, structFQN string) (map[string]any, error) {
	st, ok := d.types[structFQN]
	if !ok {
		return nil, fmt.Errorf("no struct %s in .jsii", structFQN)
	}
	props := map[string]int{}
	for i, p := range st.Properties {
		props[p.Name] = i
	}
	attrs, blocks := map[string]any{}, map[string]any{}
	for _, m := range entryRE.FindAllStringSubmatch(body, -1) {
		name, value, isBlock, kind, storage := m[1], m[2], m[3] == "true", m[4], m[5]
		f := fieldRE.FindStringSubmatch(value)
		if f == nil {
			return nil, fmt.Errorf("%s: no field in %q", name, value)
		}
		i, ok := props[f[1]]
		if !ok {
			return nil, fmt.Errorf("%s: %s is not a property of %s", name, f[1], structFQN)
		}
		prop := st.Properties[i]
		if !isBlock {
			elem, ok := storageTypes[storage]
			if !ok {
				return nil, fmt.Errorf("%s: storage %s of an attribute", name, storage)
			}
			var t any = elem
			if kind != "simple" {
				t = []any{kind, elem}
			}
			a := map[string]any{"type": t}
			if prop.Optional {
				a["optional"] = true
			} else {
				a["required"] = true
			}
			if name == "id" || name == "tags_all" {
				a["computed"] = true
			}
			attrs[name] = a
			continue
		}
		nested, single := structOf(prop.Type)
		if nested == "" {
			return nil, fmt.Errorf("%s: block of no struct", name)
		}
		local := nested[strings.LastIndex(nested, ".")+1:]
		fn := method(js, "function "+strings.ToLower(local[:1])+local[1:]+"ToHclTerraform(struct) {")
		if fn == "" {
			return nil, fmt.Errorf("%s: no function for %s", name, local)
		}
		inner, err := d.block(js, fn, nested)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b := map[string]any{"block": inner}
		switch {
		case kind == "struct":
			b["nesting_mode"] = "single"
		case kind == "list" || kind == "set":
			b["nesting_mode"] = kind
			if single {
				b["max_items"] = 1
			}
		default:
			return nil, fmt.Errorf("%s: block of type %s", name, kind)
		}
		if !prop.Optional {
			b["min_items"] = 1
		}
		blocks[name] = b
	}
	return map[string]any{"attributes": attrs, "block_types": blocks}, nil
}

// structOf is the struct a block's property holds, and whether it holds
// one (a block of at most one item) rather than a list.
func structOf(raw json.RawMessage) (string, bool) {
	var t struct {
		FQN   string `json:"fqn"`
		Union struct {
			Types []json.RawMessage `json:"types"`
		} `json:"union"`
		Collection struct {
			ElementType json.RawMessage `json:"elementtype"`
		} `json:"collection"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return "", false
	}
	switch {
	case t.FQN != "" && t.FQN != "cdktf.IResolvable" && t.FQN != "cdktn.IResolvable":
		return t.FQN, true
	case t.Collection.ElementType != nil:
		fqn, _ := structOf(t.Collection.ElementType)
		return fqn, false
	}
	for _, u := range t.Union.Types {
		if fqn, single := structOf(u); fqn != "" {
			return fqn, single
		}
	}
	return "", false
}

// method is the body of the function or method that starts with head, up
// to its closing brace at the same indentation.
func method(js, head string) string {
	i := strings.Index(js, head)
	if i < 0 {
		return ""
	}
	start := strings.LastIndex(js[:i], "\n") + 1
	indent := js[start:i]
	end := strings.Index(js[i:], "\n"+indent+"}")
	if end < 0 {
		return ""
	}
	return js[i : i+end]
}

// jsName is a folder's class name: iam-role → IamRole.
func jsName(folder string, upper bool) string {
	parts := strings.Split(folder, "-")
	for i, p := range parts {
		if p != "" && (i > 0 || upper) {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}
