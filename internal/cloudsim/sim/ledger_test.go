package sim

import (
	"testing"
	"time"
)

func TestLedgerJudgesAHistory(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	owned := map[string]string{"kubernetes.io/cluster/c1": "owned", "hcplink.io/endpoint-service": "r"}
	item := func(id string, tags map[string]string) InventoryItem {
		return InventoryItem{Cloud: "aws", Account: "a", Kind: "ec2:vpc-endpoint", ID: id, Tags: tags}
	}
	cfg := LedgerConfig{Principals: []string{"op*"}, OwnerTagPrefixes: []string{"kubernetes.io/cluster/"}, PurposeTagKeys: []string{"hcplink.io/endpoint-service"}}

	tests := []struct {
		name                     string
		steps                    func(l *Ledger)
		dups, leaks, touched, mk int
	}{
		{"replaced in turn is no duplicate", func(l *Ledger) {
			l.Observe("aws", []InventoryItem{item("e1", owned)}, "op", at(1))
			l.Observe("aws", nil, "op", at(2))
			l.Observe("aws", []InventoryItem{item("e2", owned)}, "op", at(3))
		}, 0, 1, 0, 2},
		{"two at once is a duplicate", func(l *Ledger) {
			l.Observe("aws", []InventoryItem{item("e1", owned), item("e2", owned)}, "op", at(1))
			l.Observe("aws", nil, "op", at(2))
		}, 1, 0, 0, 2},
		{"untagged made by the product is ours, a leak", func(l *Ledger) {
			l.Observe("aws", []InventoryItem{item("x", nil)}, "operator", at(1))
		}, 0, 1, 0, 1},
		{"made by someone else is foreign; the product touching it counts, others do not", func(l *Ledger) {
			l.Observe("aws", []InventoryItem{item("x", nil)}, "customer", at(1))
			l.Touched("aws", "ec2:CreateTags", "customer", []string{"x"}, at(2))
			l.Touched("aws", "ec2:CreateTags", "operator", []string{"x"}, at(3))
		}, 0, 0, 1, 0},
		{"the product touching its own is fine", func(l *Ledger) {
			l.Observe("aws", []InventoryItem{item("e1", owned)}, "op", at(1))
			l.Touched("aws", "ec2:ModifyVpcEndpoint", "op", []string{"e1"}, at(2))
		}, 0, 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLedger()
			l.Start(cfg, t0)
			tt.steps(l)
			r := l.Report()
			if len(r.Duplicates) != tt.dups || len(r.Leaks["a"]) != tt.leaks || len(r.ForeignTouched) != tt.touched || r.Created != tt.mk {
				t.Errorf("duplicates %d, leaks %d, touched %d, created %d; want %d, %d, %d, %d",
					len(r.Duplicates), len(r.Leaks["a"]), len(r.ForeignTouched), r.Created, tt.dups, tt.leaks, tt.touched, tt.mk)
			}
		})
	}
}

func TestLedgerBaselineIsForeign(t *testing.T) {
	l := NewLedger()
	l.Start(LedgerConfig{Principals: []string{"op"}}, time.Unix(0, 0), []InventoryItem{{Cloud: "azure", Account: "s", ID: "rg", CreatedBy: "op"}})
	l.Touched("azure", "Microsoft.Resources:subscriptions/resourceGroups/write", "op", []string{"rg"}, time.Unix(1, 0))
	if r := l.Report(); len(r.ForeignTouched) != 1 || len(r.Leaks) != 0 {
		t.Errorf("report = %+v, want the baseline group foreign (touched once) and no leak", r)
	}
}

func TestLedgerOffRecordsNothing(t *testing.T) {
	l := NewLedger()
	l.Observe("aws", []InventoryItem{{Cloud: "aws", Account: "a", ID: "x"}}, "op", time.Unix(0, 0))
	if r := l.Report(); r.Created != 0 || len(r.Leaks) != 0 {
		t.Errorf("an ledger never started recorded %+v", r)
	}
}

// A resource whose deletion is under way is on its way out: its
// replacement is no duplicate, but it is a leak until it is gone.
func TestLedgerDeletingIsNoDuplicateButStillALeak(t *testing.T) {
	owned := map[string]string{"kubernetes.io/cluster/c1": "owned"}
	cfg := LedgerConfig{Principals: []string{"op"}, OwnerTagPrefixes: []string{"kubernetes.io/cluster/"}}
	l := NewLedger()
	l.Start(cfg, time.Unix(0, 0))
	l.Observe("aws", []InventoryItem{{Cloud: "aws", Account: "a", Kind: "k", ID: "old", Tags: owned}}, "op", time.Unix(1, 0))
	l.Observe("aws", []InventoryItem{{Cloud: "aws", Account: "a", Kind: "k", ID: "old", Tags: owned, Deleting: true},
		{Cloud: "aws", Account: "a", Kind: "k", ID: "new", Tags: owned}}, "op", time.Unix(2, 0))
	r := l.Report()
	if len(r.Duplicates) != 0 || len(r.Leaks["a"]) != 2 {
		t.Errorf("duplicates %+v, leaks %+v; want none, and both alive", r.Duplicates, r.Leaks)
	}
}
