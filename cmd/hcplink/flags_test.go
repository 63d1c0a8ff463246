package main

import (
	"testing"

	"github.com/spf13/cobra"
)

// TestWorkerAndClusterIDFlags checks the flags the operators' worker
// counts and the management cluster's ID come from: present, with their
// defaults, and parsed.
func TestWorkerAndClusterIDFlags(t *testing.T) {
	tests := []struct {
		name    string
		cmd     *cobra.Command
		flag    string
		def     string
		setTo   string
		wantErr bool
	}{
		{name: "operator workers", cmd: newOperatorCommand(), flag: "max-concurrent-reconciles", def: "4", setTo: "8"},
		{name: "operator management cluster ID (empty: kube-system's UID)", cmd: newOperatorCommand(), flag: "management-cluster-id", def: "", setTo: "mc-eu-1"},
		{name: "control-plane operator workers", cmd: newControlPlaneOperatorCommand(), flag: "max-concurrent-reconciles", def: "2", setTo: "3"},
		{name: "operator workers must be a number", cmd: newOperatorCommand(), flag: "max-concurrent-reconciles", def: "4", setTo: "many", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.cmd.Flags().Lookup(tt.flag)
			if f == nil {
				t.Fatalf("no --%s flag", tt.flag)
			}
			if f.DefValue != tt.def {
				t.Errorf("--%s default = %q, want %q", tt.flag, f.DefValue, tt.def)
			}
			err := tt.cmd.Flags().Parse([]string{"--" + tt.flag + "=" + tt.setTo})
			if (err != nil) != tt.wantErr {
				t.Fatalf("parsing --%s=%s: %v", tt.flag, tt.setTo, err)
			}
			if !tt.wantErr && f.Value.String() != tt.setTo {
				t.Errorf("--%s = %q after parsing, want %q", tt.flag, f.Value.String(), tt.setTo)
			}
		})
	}
}
