package main

import (
	"strings"
	"testing"
)

func TestCreateInfraAWSFlags(t *testing.T) {
	cmd := newCreateInfraAWSCommand()
	for flag, def := range map[string]string{
		"infra-id": "", "name": "", "base-domain": "", "region": "us-east-1", "zones": "[]", "vpc-cidr": "10.0.0.0/16",
		"single-nat-gateway": "false", "public-only": "false", "additional-tags": "[]", "output": "json", "output-file": "",
	} {
		f := cmd.Flags().Lookup(flag)
		if f == nil {
			t.Errorf("no --%s flag", flag)
			continue
		}
		if f.DefValue != def {
			t.Errorf("--%s default = %q, want %q", flag, f.DefValue, def)
		}
	}
	destroy := newDestroyInfraAWSCommand()
	for _, flag := range []string{"infra-id", "name", "base-domain", "region"} {
		if destroy.Flags().Lookup(flag) == nil {
			t.Errorf("destroy has no --%s flag (it takes create's)", flag)
		}
	}
}

func TestParseInfraTags(t *testing.T) {
	tests := []struct {
		in      []string
		want    map[string]string
		wantErr string
	}{
		{in: nil, want: map[string]string{}},
		{in: []string{"team=platform", "cost=a=b"}, want: map[string]string{"team": "platform", "cost": "a=b"}},
		{in: []string{"empty="}, want: map[string]string{"empty": ""}},
		{in: []string{"novalue"}, wantErr: `"novalue": use KEY=VALUE`},
		{in: []string{"=x"}, wantErr: "use KEY=VALUE"},
	}
	for _, tt := range tests {
		got, err := parseInfraTags(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseInfraTags(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("parseInfraTags(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("parseInfraTags(%q)[%s] = %q, want %q", tt.in, k, got[k], v)
			}
		}
	}
}
