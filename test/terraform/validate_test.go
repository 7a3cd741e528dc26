// Package terraform holds karpgen's Terraform module to OpenTofu and to
// the AWS provider's schema: `tofu validate` with a provider that serves
// the schema in reference/terraform, and `tofu console` evaluating each
// document the module passes to the provider.
package terraform

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const devOverrideWarning = "Provider development overrides are in effect"

// tools are the binaries `make terraform-validate` builds.
type tools struct {
	tofu, env []string
	root      string
}

// schemas are the AWS provider majors the module allows, each with the
// schema its validation serves.
var schemas = map[string]string{
	"6.x": "reference/terraform/aws-provider-schema.json",
	"5.x": "reference/terraform/v5/aws-provider-schema.json",
}

func setup(t *testing.T) tools { return setupFor(t, schemas["6.x"]) }

// setupFor is setup with the provider serving a schema of the repository.
func setupFor(t *testing.T, schema string) tools {
	t.Helper()
	tofu, plugins, karpgen := os.Getenv("TOFU_BIN"), os.Getenv("TF_PROVIDER_DIR"), os.Getenv("KARPGEN_BIN")
	if tofu == "" || plugins == "" || karpgen == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TOFU_BIN, TF_PROVIDER_DIR and KARPGEN_BIN are not all set (make terraform-validate sets them)")
		}
		t.Skip("TOFU_BIN, TF_PROVIDER_DIR and KARPGEN_BIN are not all set (make terraform-validate sets them)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cli.tfrc")
	// The AWS provider is the one that serves the derived schema.
	conf := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"hashicorp/aws\" = %q\n  }\n  direct {}\n}\n", plugins)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return tools{
		tofu: []string{tofu},
		root: root,
		env: append(os.Environ(),
			"TF_CLI_CONFIG_FILE="+cfg,
			"TF_IN_AUTOMATION=1",
			"TF_DATA_DIR="+filepath.Join(dir, "data"),
			"CHECKPOINT_DISABLE=1",
			"KARPGEN_TF_SCHEMA="+filepath.Join(root, schema),
		),
	}
}

func (tl tools) run(t *testing.T, dir, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(tl.tofu[0], append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = tl.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, errb.String())
	}
	return out.String(), err
}

// modules are the repository's own bundles and those of profiles that
// take what the repository's do not: adoption, IRSA, a boundary, aws-auth,
// no queue, a second node role.
func modules(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	found, _ := filepath.Glob(filepath.Join(root, "out", "*", "iam", "terraform"))
	for _, d := range found {
		out["repo/"+filepath.Base(filepath.Dir(filepath.Dir(d)))] = filepath.Dir(filepath.Dir(d))
	}
	if len(out) == 0 {
		t.Fatal("out/ of the repository holds no Terraform module")
	}
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles")
	if err := os.MkdirAll(profiles, 0o755); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(filepath.Join(root, "cmd/karpgen/testdata/common/base.cue"))
	if err != nil {
		t.Fatal(err)
	}
	envs, err := os.ReadFile("testdata/environments.cue")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"base.cue": base, "environments.cue": envs} {
		if err := os.WriteFile(filepath.Join(profiles, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Getenv("KARPGEN_BIN"), "render")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("karpgen render: %v\n%s", err, b)
	}
	for _, env := range []string{"adopted", "awsauth"} {
		out["variant/"+env] = filepath.Join(dir, "out", env)
	}
	return out
}

// copyModule copies a bundle's module where tofu may write.
func copyModule(t *testing.T, bundle string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(bundle, "iam", "terraform", "main.tf.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

type diagnostic struct {
	Severity, Summary, Detail string
	Range                     *struct {
		Start struct{ Line, Column int }
	}
}

func (d diagnostic) String() string {
	at := ""
	if d.Range != nil {
		at = fmt.Sprintf(" at %d:%d", d.Range.Start.Line, d.Range.Start.Column)
	}
	return d.Severity + ": " + d.Summary + at + ": " + d.Detail
}

func validate(t *testing.T, tl tools, dir string) (bool, []diagnostic) {
	t.Helper()
	out, err := tl.run(t, dir, "", "validate", "-json", "-no-color")
	var v struct {
		Valid       bool
		Diagnostics []diagnostic
	}
	if jerr := json.Unmarshal([]byte(out), &v); jerr != nil {
		t.Fatalf("tofu validate: %v %v\n%s", err, jerr, out)
	}
	var diags []diagnostic
	for _, d := range v.Diagnostics {
		if d.Summary != devOverrideWarning {
			diags = append(diags, d)
		}
	}
	return v.Valid, diags
}

// TestModulesValidate: every module is valid to OpenTofu against the AWS
// provider's schema of each major it allows, without a warning.
func TestModulesValidate(t *testing.T) {
	for major, schema := range schemas {
		tl := setupFor(t, schema)
		for name, bundle := range modules(t, tl.root) {
			t.Run(major+"/"+name, func(t *testing.T) {
				valid, diags := validate(t, tl, copyModule(t, bundle))
				if !valid || len(diags) > 0 {
					t.Errorf("tofu validate: valid=%v\n%v", valid, diags)
				}
			})
		}
	}
}

// TestModulesNeedNoMoreThanEachMajor: an attribute one major has and the
// other lacks is refused by that major's schema (6.x's region of
// aws_region, which 5.x does not have), so the validation against both
// can fail.
func TestModulesNeedNoMoreThanEachMajor(t *testing.T) {
	tl := setupFor(t, schemas["5.x"])
	dir := copyModule(t, filepath.Join(tl.root, "out", "dev"))
	file := filepath.Join(dir, "main.tf.json")
	data, _ := os.ReadFile(file)
	from := []byte("data.aws_region.current.id")
	if !bytes.Contains(data, from) {
		t.Fatalf("out/dev's module has no %s", from)
	}
	if err := os.WriteFile(file, bytes.ReplaceAll(data, from, []byte("data.aws_region.current.region")), 0o644); err != nil {
		t.Fatal(err)
	}
	valid, diags := validate(t, tl, dir)
	if valid || !strings.Contains(fmt.Sprint(diags), `named "region"`) {
		t.Errorf("tofu validate against 5.x: valid=%v, want region refused:\n%v", valid, diags)
	}
}

// TestValidateRefusesWhatTheProviderLacks: the check can fail. An
// argument the provider does not have, a reference to an attribute it
// does not export and a type it does not know are each refused, by name.
func TestValidateRefusesWhatTheProviderLacks(t *testing.T) {
	tl := setup(t)
	bundle := filepath.Join(tl.root, "out", "dev")
	for _, c := range []struct{ name, from, to, want string }{
		{"unknown argument", `"message_retention_seconds"`, `"message_retention_period"`, `No argument or block type is named "message_retention_period".`},
		{"unknown attribute", `aws_iam_role.KarpenterNodeRole.arn}`, `aws_iam_role.KarpenterNodeRole.role_arn}`, `named "role_arn"`},
		{"unknown type", `"aws_eks_access_entry"`, `"aws_eks_access_entries"`, `aws_eks_access_entries`},
		{"missing argument", `"principal_arn": "${aws_iam_role.KarpenterNodeRole.arn}",`, ``, `"principal_arn" is required`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyModule(t, bundle)
			file := filepath.Join(dir, "main.tf.json")
			data, _ := os.ReadFile(file)
			if !bytes.Contains(data, []byte(c.from)) {
				t.Fatalf("out/dev's module has no %s", c.from)
			}
			if err := os.WriteFile(file, bytes.Replace(data, []byte(c.from), []byte(c.to), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			valid, diags := validate(t, tl, dir)
			if valid || !strings.Contains(fmt.Sprint(diags), c.want) {
				t.Errorf("tofu validate: valid=%v, want an error with %q:\n%v", valid, c.want, diags)
			}
		})
	}
}

// TestSchemaIsTheRecordedOne: each schema served is the one the SOURCE
// beside it records.
func TestSchemaIsTheRecordedOne(t *testing.T) {
	for major, schema := range schemas {
		data, err := os.ReadFile(filepath.Join("..", "..", schema))
		if err != nil {
			t.Fatal(err)
		}
		source, err := os.ReadFile(filepath.Join("..", "..", filepath.Dir(schema), "SOURCE"))
		if err != nil {
			t.Fatal(err)
		}
		sum := fmt.Sprintf("%x  aws-provider-schema.json", sha256.Sum256(data))
		if !strings.Contains(string(source), sum+"\n") || !strings.Contains(string(source), "provider registry.terraform.io/hashicorp/aws "+strings.TrimSuffix(major, "x")) {
			t.Errorf("%s/SOURCE does not record %s of hashicorp/aws %s (hack/refresh-terraform-schema.sh rewrites both)", filepath.Dir(schema), sum, major)
		}
	}
}

var documentRE = regexp.MustCompile(`^\$\{jsonencode\(local\.(\w+)\)\}$`)

// documentProperty is the template property of the document each module
// argument passes.
var documentProperty = map[string]string{
	"aws_iam_policy.policy":                   "PolicyDocument",
	"aws_iam_role.assume_role_policy":         "AssumeRolePolicyDocument",
	"aws_sqs_queue_policy.policy":             "PolicyDocument",
	"aws_cloudwatch_event_rule.event_pattern": "EventPattern",
}

// TestDocumentsAreTheTemplates: what OpenTofu sends the provider for each
// policy, trust policy and event pattern, as `tofu console` evaluates it,
// is the template's document of the resource of the same name, statement
// for statement.
func TestDocumentsAreTheTemplates(t *testing.T) {
	tl := setup(t)
	total := 0
	for name, bundle := range modules(t, tl.root) {
		t.Run(name, func(t *testing.T) {
			dir := copyModule(t, bundle)
			var mod struct {
				Resource map[string]map[string]map[string]any
			}
			data, _ := os.ReadFile(filepath.Join(dir, "main.tf.json"))
			if err := json.Unmarshal(data, &mod); err != nil {
				t.Fatal(err)
			}
			var cfn struct {
				Resources map[string]struct{ Properties map[string]any }
			}
			tpl, err := os.ReadFile(filepath.Join(bundle, "iam", "cloudformation.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(tpl, &cfn); err != nil {
				t.Fatal(err)
			}
			type pair struct {
				expr string
				want any
				what string
			}
			var pairs []pair
			for typ, byName := range mod.Resource {
				for id, args := range byName {
					for arg, v := range args {
						prop, ok := documentProperty[typ+"."+arg]
						if !ok {
							continue
						}
						s, _ := v.(string)
						m := documentRE.FindStringSubmatch(s)
						if m == nil {
							t.Fatalf("%s.%s.%s = %v is not a document", typ, id, arg, v)
						}
						r, ok := cfn.Resources[id]
						if !ok {
							t.Fatalf("the template has no %s", id)
						}
						pairs = append(pairs, pair{"jsonencode(local." + m[1] + ")", r.Properties[prop], typ + "." + id + "." + arg})
					}
				}
			}
			sort.Slice(pairs, func(i, j int) bool { return pairs[i].what < pairs[j].what })
			var in strings.Builder
			for _, p := range pairs {
				in.WriteString(p.expr + "\n")
			}
			out, err := tl.run(t, dir, in.String(), "console")
			if err != nil {
				t.Fatalf("tofu console: %v", err)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != len(pairs) {
				t.Fatalf("tofu console gave %d values for %d documents:\n%s", len(lines), len(pairs), out)
			}
			for i, p := range pairs {
				got := evaluated(t, lines[i])
				want := roundTrip(t, p.want)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: OpenTofu sends\n%v\nthe template has\n%v", p.what, got, want)
				}
				total += statements(want)
			}
			if len(pairs) == 0 {
				t.Error("no document compared")
			}
		})
	}
	t.Logf("%d statements and patterns compared", total)
}

// evaluated is a string as `tofu console` prints it, decoded as JSON.
func evaluated(t *testing.T, line string) any {
	t.Helper()
	s, err := strconv.Unquote(line)
	if err != nil {
		t.Fatalf("tofu console printed %s: %v", line, err)
	}
	s = strings.NewReplacer("$${", "${", "%%{", "%{").Replace(s)
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("tofu console printed %s: %v", s, err)
	}
	return v
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// statements counts a document's statements (a pattern counts as one).
func statements(doc any) int {
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["Statement"].([]any); ok {
			return len(s)
		}
	}
	return 1
}
