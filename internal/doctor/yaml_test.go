package doctor_test

import (
	"encoding/json"

	"sigs.k8s.io/yaml"
)

// yamlUnmarshal reads YAML as JSON would (helm get values -o json).
func yamlUnmarshal(data []byte, v *any) error {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	return jsonUnmarshal(js, v)
}

func jsonUnmarshal(data []byte, v *any) error { return json.Unmarshal(data, v) }
