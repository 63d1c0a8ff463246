package devenv

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/controlplane/gcpprivateserviceconnect"
)

// gcpWorkloadIdentity is the projected ServiceAccount token a control-plane
// operator's pod carries for GCP workload identity federation: its
// ServiceAccount and the token's audience (the pool provider's). Zero when
// the Deployment projects no token where the operator reads it.
type gcpWorkloadIdentity struct {
	serviceAccount string
	audience       string
}

// gcpWorkloadIdentityOf reads the Deployment exactly as a kubelet would
// run it: the token file the operator reads (HCPLINK_GCP_TOKEN_FILE, else
// its default path) and the audience of the projected ServiceAccount token
// mounted there. A file named by the variable but on no projected token
// volume is an error, as the pod would fail; no variable and no volume at
// the default path is a pod without a token.
func gcpWorkloadIdentityOf(deploy *appsv1.Deployment) (gcpWorkloadIdentity, error) {
	pod := deploy.Spec.Template.Spec
	if len(pod.Containers) == 0 {
		return gcpWorkloadIdentity{}, nil
	}
	c := pod.Containers[0]
	tokenFile, named := gcpcloud.DefaultTokenFile, false
	for _, e := range c.Env {
		if e.Name == gcpcloud.EnvTokenFile && e.Value != "" {
			tokenFile, named = e.Value, true
		}
	}
	if audience, ok := projectedTokenAt(pod, c, tokenFile); ok {
		return gcpWorkloadIdentity{serviceAccount: pod.ServiceAccountName, audience: audience}, nil
	}
	if named {
		return gcpWorkloadIdentity{}, fmt.Errorf("%s=%s is on no projected ServiceAccount token volume of the Deployment", gcpcloud.EnvTokenFile, tokenFile)
	}
	return gcpWorkloadIdentity{}, nil
}

// projectedTokenAt finds the projected ServiceAccount token the container
// sees at file, and its audience.
func projectedTokenAt(pod corev1.PodSpec, c corev1.Container, file string) (string, bool) {
	dir, name := path.Split(file)
	for _, m := range c.VolumeMounts {
		if path.Clean(m.MountPath) != path.Clean(dir) {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name != m.Name || v.Projected == nil {
				continue
			}
			for _, src := range v.Projected.Sources {
				if tok := src.ServiceAccountToken; tok != nil && tok.Path == name {
					return tok.Audience, true
				}
			}
		}
	}
	return "", false
}

// gcpFactory is what the pod would have: the token the kubelet would
// project for the Deployment's ServiceAccount and audience (signed by
// devenv's issuer, which cloudsim trusts) in a file of its own, and
// cloudsim's endpoints. Nil unless devenv runs GCP; without a token the
// operator gets none, and its credentials check says so.
func (r *cpoRunner) gcpFactory(ctx context.Context, namespace string, id gcpWorkloadIdentity) (*gcpprivateserviceconnect.WIFFactory, error) {
	if r.gcp == nil {
		return nil, nil
	}
	g := r.gcp
	f := &gcpprivateserviceconnect.WIFFactory{ComputeEndpoint: g.computeEndpoint(), DNSEndpoint: g.dnsEndpoint(),
		STSEndpoint: g.cloudURL + "/sts/v1/token", IAMCredentialsEndpoint: g.cloudURL + "/iamcredentials/", Component: "control-plane-operator"}
	if id.audience == "" {
		return f, nil
	}
	// The kubelet runs no pod whose ServiceAccount does not exist.
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: id.serviceAccount}, &corev1.ServiceAccount{}); err != nil {
		return nil, fmt.Errorf("reading the control-plane operator's ServiceAccount %s: %w", id.serviceAccount, err)
	}
	token, err := g.serviceAccountToken(namespace, id.serviceAccount, id.audience, time.Now())
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(r.workDir, "pods", namespace)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f.TokenFile = filepath.Join(dir, "gcp-token")
	if err := os.WriteFile(f.TokenFile, []byte(token), 0o600); err != nil {
		return nil, err
	}
	return f, nil
}
