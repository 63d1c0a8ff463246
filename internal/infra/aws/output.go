package aws

import (
	"bytes"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// Output formats.
const (
	FormatJSON = "json"
	FormatYAML = "yaml"
	FormatText = "text"
)

// Render writes the output as JSON (the format `create iam aws` and a
// HostedCluster's fields are filled from), YAML, or text for a person.
func (o *Output) Render(format string) ([]byte, error) {
	switch format {
	case FormatJSON, "":
		b, err := json.MarshalIndent(o, "", "  ")
		return append(b, '\n'), err
	case FormatYAML:
		return yaml.Marshal(o)
	case FormatText:
		return o.text(), nil
	}
	return nil, fmt.Errorf("--output %q: use json, yaml or text", format)
}

func (o *Output) text() []byte {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, v) }
	row("Infra ID", o.InfraID)
	row("Region", o.Region)
	row("VPC", o.VPCID+" ("+o.MachineCIDR+")")
	for _, z := range o.Zones {
		row("Subnet "+z.Name, z.SubnetID)
	}
	row("Public zone", o.PublicZoneID+" ("+o.BaseDomain+")")
	row("Private zone", o.PrivateZoneID+" ("+o.Name+"."+o.BaseDomain+")")
	row("Local zone", o.LocalZoneID+" ("+o.Name+".hypershift.local)")
	row("Public only", fmt.Sprint(o.PublicOnly))
	_ = w.Flush()
	return b.Bytes()
}
