// Command schemaprovider is a Terraform provider that knows only a schema:
// the one in the file $KARPGEN_TF_SCHEMA, in the format of `tofu
// providers schema -json` (reference/terraform holds the AWS provider's,
// derived from the provider's own). It answers the schema and validates
// nothing itself, so that `tofu validate` holds a module to the schema
// with OpenTofu's own decoder: unknown arguments, missing required ones,
// wrong types and nesting, references to attributes that do not exist.
// It plans, reads and applies nothing.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5/tf5server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func main() {
	schema, err := load(os.Getenv("KARPGEN_TF_SCHEMA"))
	if err != nil {
		log.Fatal(err)
	}
	if err := tf5server.Serve("registry.opentofu.org/hashicorp/aws", func() tfprotov5.ProviderServer { return &server{schema: schema} }); err != nil {
		log.Fatal(err)
	}
}

// file is the part of `tofu providers schema -json` a provider serves.
type file struct {
	ProviderSchemas map[string]struct {
		Provider          jsonSchema            `json:"provider"`
		ResourceSchemas   map[string]jsonSchema `json:"resource_schemas"`
		DataSourceSchemas map[string]jsonSchema `json:"data_source_schemas"`
	} `json:"provider_schemas"`
}

type jsonSchema struct {
	Version int64     `json:"version"`
	Block   jsonBlock `json:"block"`
}

type jsonBlock struct {
	Attributes map[string]struct {
		Type     json.RawMessage `json:"type"`
		Required bool            `json:"required"`
		Optional bool            `json:"optional"`
		Computed bool            `json:"computed"`
	} `json:"attributes"`
	BlockTypes map[string]struct {
		NestingMode string    `json:"nesting_mode"`
		Block       jsonBlock `json:"block"`
		MinItems    int64     `json:"min_items"`
		MaxItems    int64     `json:"max_items"`
	} `json:"block_types"`
}

func load(path string) (*tfprotov5.GetProviderSchemaResponse, error) {
	if path == "" {
		return nil, fmt.Errorf("KARPGEN_TF_SCHEMA names no schema file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.ProviderSchemas) != 1 {
		return nil, fmt.Errorf("%s: %d providers, want one", path, len(f.ProviderSchemas))
	}
	resp := &tfprotov5.GetProviderSchemaResponse{
		ResourceSchemas:   map[string]*tfprotov5.Schema{},
		DataSourceSchemas: map[string]*tfprotov5.Schema{},
	}
	for _, p := range f.ProviderSchemas {
		if resp.Provider, err = schemaOf(p.Provider); err != nil {
			return nil, err
		}
		for name, s := range p.ResourceSchemas {
			if resp.ResourceSchemas[name], err = schemaOf(s); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		for name, s := range p.DataSourceSchemas {
			if resp.DataSourceSchemas[name], err = schemaOf(s); err != nil {
				return nil, fmt.Errorf("data %s: %w", name, err)
			}
		}
	}
	return resp, nil
}

func schemaOf(s jsonSchema) (*tfprotov5.Schema, error) {
	b, err := blockOf(s.Block)
	return &tfprotov5.Schema{Version: s.Version, Block: b}, err
}

var nesting = map[string]tfprotov5.SchemaNestedBlockNestingMode{
	"single": tfprotov5.SchemaNestedBlockNestingModeSingle,
	"list":   tfprotov5.SchemaNestedBlockNestingModeList,
	"set":    tfprotov5.SchemaNestedBlockNestingModeSet,
	"map":    tfprotov5.SchemaNestedBlockNestingModeMap,
	"group":  tfprotov5.SchemaNestedBlockNestingModeGroup,
}

func blockOf(j jsonBlock) (*tfprotov5.SchemaBlock, error) {
	b := &tfprotov5.SchemaBlock{}
	for _, name := range sorted(j.Attributes) {
		a := j.Attributes[name]
		t, err := typeOf(a.Type)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b.Attributes = append(b.Attributes, &tfprotov5.SchemaAttribute{
			Name: name, Type: t, Required: a.Required, Optional: a.Optional, Computed: a.Computed,
		})
	}
	for _, name := range sorted(j.BlockTypes) {
		nb := j.BlockTypes[name]
		mode, ok := nesting[nb.NestingMode]
		if !ok {
			return nil, fmt.Errorf("%s: nesting %q", name, nb.NestingMode)
		}
		inner, err := blockOf(nb.Block)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b.BlockTypes = append(b.BlockTypes, &tfprotov5.SchemaNestedBlock{
			TypeName: name, Block: inner, Nesting: mode, MinItems: nb.MinItems, MaxItems: nb.MaxItems,
		})
	}
	return b, nil
}

// typeOf reads a type as cty writes it in JSON: "string", ["list", T],
// ["object", {name: T}].
func typeOf(raw json.RawMessage) (tftypes.Type, error) {
	var prim string
	if json.Unmarshal(raw, &prim) == nil {
		switch prim {
		case "string":
			return tftypes.String, nil
		case "number":
			return tftypes.Number, nil
		case "bool":
			return tftypes.Bool, nil
		case "dynamic":
			return tftypes.DynamicPseudoType, nil
		}
		return nil, fmt.Errorf("type %q", prim)
	}
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return nil, fmt.Errorf("type %s", raw)
	}
	var kind string
	if err := json.Unmarshal(pair[0], &kind); err != nil {
		return nil, fmt.Errorf("type %s", raw)
	}
	if kind == "object" {
		var attrs map[string]json.RawMessage
		if err := json.Unmarshal(pair[1], &attrs); err != nil {
			return nil, fmt.Errorf("type %s", raw)
		}
		o := tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
		for name, a := range attrs {
			t, err := typeOf(a)
			if err != nil {
				return nil, err
			}
			o.AttributeTypes[name] = t
		}
		return o, nil
	}
	elem, err := typeOf(pair[1])
	if err != nil {
		return nil, err
	}
	switch kind {
	case "list":
		return tftypes.List{ElementType: elem}, nil
	case "set":
		return tftypes.Set{ElementType: elem}, nil
	case "map":
		return tftypes.Map{ElementType: elem}, nil
	}
	return nil, fmt.Errorf("type %s", raw)
}

func sorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// server answers the schema; every other call succeeds with nothing.
type server struct {
	schema *tfprotov5.GetProviderSchemaResponse
}

func (s *server) GetMetadata(context.Context, *tfprotov5.GetMetadataRequest) (*tfprotov5.GetMetadataResponse, error) {
	resp := &tfprotov5.GetMetadataResponse{ServerCapabilities: &tfprotov5.ServerCapabilities{GetProviderSchemaOptional: false}}
	for _, name := range sorted(s.schema.ResourceSchemas) {
		resp.Resources = append(resp.Resources, tfprotov5.ResourceMetadata{TypeName: name})
	}
	for _, name := range sorted(s.schema.DataSourceSchemas) {
		resp.DataSources = append(resp.DataSources, tfprotov5.DataSourceMetadata{TypeName: name})
	}
	return resp, nil
}

func (s *server) GetProviderSchema(context.Context, *tfprotov5.GetProviderSchemaRequest) (*tfprotov5.GetProviderSchemaResponse, error) {
	return s.schema, nil
}

func (s *server) GetResourceIdentitySchemas(context.Context, *tfprotov5.GetResourceIdentitySchemasRequest) (*tfprotov5.GetResourceIdentitySchemasResponse, error) {
	return &tfprotov5.GetResourceIdentitySchemasResponse{}, nil
}

func (s *server) PrepareProviderConfig(_ context.Context, req *tfprotov5.PrepareProviderConfigRequest) (*tfprotov5.PrepareProviderConfigResponse, error) {
	return &tfprotov5.PrepareProviderConfigResponse{PreparedConfig: req.Config}, nil
}

func (s *server) ConfigureProvider(context.Context, *tfprotov5.ConfigureProviderRequest) (*tfprotov5.ConfigureProviderResponse, error) {
	return &tfprotov5.ConfigureProviderResponse{}, nil
}

func (s *server) StopProvider(context.Context, *tfprotov5.StopProviderRequest) (*tfprotov5.StopProviderResponse, error) {
	return &tfprotov5.StopProviderResponse{}, nil
}

func (s *server) ValidateResourceTypeConfig(context.Context, *tfprotov5.ValidateResourceTypeConfigRequest) (*tfprotov5.ValidateResourceTypeConfigResponse, error) {
	return &tfprotov5.ValidateResourceTypeConfigResponse{}, nil
}

func (s *server) ValidateDataSourceConfig(context.Context, *tfprotov5.ValidateDataSourceConfigRequest) (*tfprotov5.ValidateDataSourceConfigResponse, error) {
	return &tfprotov5.ValidateDataSourceConfigResponse{}, nil
}

var errNothing = fmt.Errorf("this provider serves a schema and does nothing else")

func (s *server) UpgradeResourceState(context.Context, *tfprotov5.UpgradeResourceStateRequest) (*tfprotov5.UpgradeResourceStateResponse, error) {
	return nil, errNothing
}

func (s *server) UpgradeResourceIdentity(context.Context, *tfprotov5.UpgradeResourceIdentityRequest) (*tfprotov5.UpgradeResourceIdentityResponse, error) {
	return nil, errNothing
}

func (s *server) ReadResource(context.Context, *tfprotov5.ReadResourceRequest) (*tfprotov5.ReadResourceResponse, error) {
	return nil, errNothing
}

func (s *server) PlanResourceChange(context.Context, *tfprotov5.PlanResourceChangeRequest) (*tfprotov5.PlanResourceChangeResponse, error) {
	return nil, errNothing
}

func (s *server) ApplyResourceChange(context.Context, *tfprotov5.ApplyResourceChangeRequest) (*tfprotov5.ApplyResourceChangeResponse, error) {
	return nil, errNothing
}

func (s *server) ImportResourceState(context.Context, *tfprotov5.ImportResourceStateRequest) (*tfprotov5.ImportResourceStateResponse, error) {
	return nil, errNothing
}

func (s *server) MoveResourceState(context.Context, *tfprotov5.MoveResourceStateRequest) (*tfprotov5.MoveResourceStateResponse, error) {
	return nil, errNothing
}

func (s *server) ReadDataSource(context.Context, *tfprotov5.ReadDataSourceRequest) (*tfprotov5.ReadDataSourceResponse, error) {
	return nil, errNothing
}

func (s *server) CallFunction(context.Context, *tfprotov5.CallFunctionRequest) (*tfprotov5.CallFunctionResponse, error) {
	return nil, errNothing
}

func (s *server) GetFunctions(context.Context, *tfprotov5.GetFunctionsRequest) (*tfprotov5.GetFunctionsResponse, error) {
	return &tfprotov5.GetFunctionsResponse{}, nil
}

func (s *server) ValidateEphemeralResourceConfig(context.Context, *tfprotov5.ValidateEphemeralResourceConfigRequest) (*tfprotov5.ValidateEphemeralResourceConfigResponse, error) {
	return &tfprotov5.ValidateEphemeralResourceConfigResponse{}, nil
}

func (s *server) OpenEphemeralResource(context.Context, *tfprotov5.OpenEphemeralResourceRequest) (*tfprotov5.OpenEphemeralResourceResponse, error) {
	return nil, errNothing
}

func (s *server) RenewEphemeralResource(context.Context, *tfprotov5.RenewEphemeralResourceRequest) (*tfprotov5.RenewEphemeralResourceResponse, error) {
	return nil, errNothing
}

func (s *server) CloseEphemeralResource(context.Context, *tfprotov5.CloseEphemeralResourceRequest) (*tfprotov5.CloseEphemeralResourceResponse, error) {
	return nil, errNothing
}

func (s *server) GenerateResourceConfig(context.Context, *tfprotov5.GenerateResourceConfigRequest) (*tfprotov5.GenerateResourceConfigResponse, error) {
	return nil, errNothing
}
