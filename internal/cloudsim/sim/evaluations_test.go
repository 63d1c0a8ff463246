package sim

import "testing"

func TestEvaluationLogCountsEachDecisionAndCopiesOut(t *testing.T) {
	l := EvaluationLog{}
	l.Record("alice", "ec2:DescribeVpcs", true)
	l.Record("alice", "ec2:DescribeVpcs", true)
	l.Record("alice", "ec2:CreateVpc", false)
	l.Record("bob", "ec2:DescribeVpcs", false)

	got := l.Of("alice")
	want := map[string]Evaluation{"ec2:DescribeVpcs": {Allowed: 2}, "ec2:CreateVpc": {Denied: 1}}
	if len(got) != len(want) {
		t.Fatalf("Of(alice) = %v, want %v", got, want)
	}
	for action, d := range want {
		if got[action] != d {
			t.Errorf("Of(alice)[%s] = %+v, want %+v", action, got[action], d)
		}
	}
	got["ec2:CreateVpc"] = Evaluation{Allowed: 99}
	if l.Of("alice")["ec2:CreateVpc"].Allowed != 0 {
		t.Error("changing the copy Of returned changed the log")
	}
	if of := l.Of("carol"); of == nil || len(of) != 0 {
		t.Errorf("Of(carol) = %v, want an empty map", of)
	}
}
