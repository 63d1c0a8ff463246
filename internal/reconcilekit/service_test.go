package reconcilekit

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func TestObjectChanged(t *testing.T) {
	base := &hcplinkv1beta1.GCPPrivateServiceConnect{ObjectMeta: metav1.ObjectMeta{Generation: 1,
		Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: "ns/a"}}}
	labelled := func(l string) func(o, n client.Object) bool {
		return func(o, n client.Object) bool { return o.GetLabels()[l] != n.GetLabels()[l] }
	}
	for name, tc := range map[string]struct {
		change func(*hcplinkv1beta1.GCPPrivateServiceConnect)
		also   func(o, n client.Object) bool
		want   bool
	}{
		"status only":        {change: func(o *hcplinkv1beta1.GCPPrivateServiceConnect) { o.Status.ServiceAttachmentURI = "x" }},
		"generation":         {change: func(o *hcplinkv1beta1.GCPPrivateServiceConnect) { o.Generation = 2 }, want: true},
		"deletion":           {change: func(o *hcplinkv1beta1.GCPPrivateServiceConnect) { o.DeletionTimestamp = &metav1.Time{} }, want: true},
		"finalizer gone":     {change: func(o *hcplinkv1beta1.GCPPrivateServiceConnect) { o.Finalizers = []string{"x"} }, want: true},
		"cluster annotation": {change: func(o *hcplinkv1beta1.GCPPrivateServiceConnect) { o.Annotations = nil }, want: true},
		"label, not picked":  {change: func(o *hcplinkv1beta1.GCPPrivateServiceConnect) { o.Labels = map[string]string{"l": "1"} }},
		"label, picked": {change: func(o *hcplinkv1beta1.GCPPrivateServiceConnect) { o.Labels = map[string]string{"l": "1"} },
			also: labelled("l"), want: true},
	} {
		t.Run(name, func(t *testing.T) {
			n := base.DeepCopy()
			tc.change(n)
			if got := ObjectChanged(tc.also).Update(event.UpdateEvent{ObjectOld: base, ObjectNew: n}); got != tc.want {
				t.Errorf("ObjectChanged = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHostedClusterChanged(t *testing.T) {
	base := &hcplinkv1beta1.HostedCluster{Spec: hcplinkv1beta1.HostedClusterSpec{Platform: hcplinkv1beta1.PlatformSpec{
		GCP: &hcplinkv1beta1.GCPPlatformSpec{Project: "p"}}}}
	gcp := func(hc *hcplinkv1beta1.HostedCluster) any { return hc.Spec.Platform.GCP }
	for name, tc := range map[string]struct {
		change func(*hcplinkv1beta1.HostedCluster)
		want   bool
	}{
		"status only":    {change: func(hc *hcplinkv1beta1.HostedCluster) { hc.Status.Conditions = []metav1.Condition{{Type: "Available"}} }},
		"other platform": {change: func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.AWS = &hcplinkv1beta1.AWSPlatformSpec{} }},
		"own platform":   {change: func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.GCP.Project = "q" }, want: true},
		"paused":         {change: func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.PausedUntil = ptr.To("true") }, want: true},
		"deletion":       {change: func(hc *hcplinkv1beta1.HostedCluster) { hc.DeletionTimestamp = &metav1.Time{} }, want: true},
	} {
		t.Run(name, func(t *testing.T) {
			n := base.DeepCopy()
			tc.change(n)
			if got := HostedClusterChanged(gcp).Update(event.UpdateEvent{ObjectOld: base, ObjectNew: n}); got != tc.want {
				t.Errorf("HostedClusterChanged = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDeletionStart(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	until := now.Add(time.Hour).Format(time.RFC3339)
	obj := func(finalizers ...string) *hcplinkv1beta1.GCPPrivateServiceConnect {
		return &hcplinkv1beta1.GCPPrivateServiceConnect{ObjectMeta: metav1.ObjectMeta{Finalizers: finalizers}}
	}
	paused := &hcplinkv1beta1.HostedCluster{Spec: hcplinkv1beta1.HostedClusterSpec{PausedUntil: &until}}
	for name, tc := range map[string]struct {
		obj        *hcplinkv1beta1.GCPPrivateServiceConnect
		hc         *hcplinkv1beta1.HostedCluster
		over       bool
		after      time.Duration
		forgotten  bool
		waitsForCP bool
	}{
		"our finalizer gone":               {obj: obj(hcplinkv1beta1.ControlPlaneFinalizer), hc: paused, over: true, forgotten: true, waitsForCP: true},
		"paused":                           {obj: obj(hcplinkv1beta1.OperatorFinalizer, hcplinkv1beta1.ControlPlaneFinalizer), hc: paused, over: true, after: time.Hour, waitsForCP: true},
		"control plane first":              {obj: obj(hcplinkv1beta1.OperatorFinalizer, hcplinkv1beta1.ControlPlaneFinalizer), waitsForCP: true},
		"cluster gone, control plane done": {obj: obj(hcplinkv1beta1.OperatorFinalizer)},
	} {
		t.Run(name, func(t *testing.T) {
			forgotten := false
			res, over := DeletionStart(tc.obj, tc.hc, now, func() { forgotten = true })
			if over != tc.over || res.RequeueAfter != tc.after || forgotten != tc.forgotten {
				t.Errorf("over %v after %v forgotten %v, want %v %v %v", over, res.RequeueAfter, forgotten, tc.over, tc.after, tc.forgotten)
			}
			if got := WaitsForControlPlane(tc.obj); got != tc.waitsForCP {
				t.Errorf("WaitsForControlPlane = %v, want %v", got, tc.waitsForCP)
			}
		})
	}
}
