// Package satoken gives a process outside the cluster the identity a pod
// of a ServiceAccount has: a token minted through the TokenRequest API,
// kept fresh in a file the way the kubelet keeps a projected token, and a
// client configuration that authenticates with that token only. The local
// environment runs both operators this way, so that they hold exactly the
// RBAC hcplink renders and nothing of the administrator's.
package satoken

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// Lifetime of a minted token: a projected token's default, one hour.
	Lifetime = time.Hour
	// refreshAt is the share of its lifetime after which a token is
	// replaced: the kubelet starts rotating a projected token past 80 % of
	// its time to live (ServiceAccountTokenProjection.expirationSeconds,
	// https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/volume/).
	refreshAt = 0.8
	// retryAfter is how soon a failed refresh is tried again; the old
	// token stays valid meanwhile.
	retryAfter = 10 * time.Second
)

// Request mints a token for the ServiceAccount namespace/name, for the
// API server's own audience, valid for lifetime.
func Request(ctx context.Context, c client.Client, namespace, name string, lifetime time.Duration) (string, time.Time, error) {
	seconds := int64(lifetime / time.Second)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
		return "", time.Time{}, fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return tr.Status.Token, tr.Status.ExpirationTimestamp.Time, nil
}

// Keep writes a token for namespace/name to path, and then, until ctx
// ends, a new one each time the last has lived refreshAt of its lifetime,
// as the kubelet does for a projected token. It returns once the first
// token is written; a failed refresh is logged and tried again soon.
func Keep(ctx context.Context, c client.Client, namespace, name, path string, log logr.Logger) error {
	return keep(ctx, c, namespace, name, path, log, time.Duration(float64(Lifetime)*refreshAt))
}

func keep(ctx context.Context, c client.Client, namespace, name, path string, log logr.Logger, refreshEvery time.Duration) error {
	expiry, err := write(ctx, c, namespace, name, path)
	if err != nil {
		return err
	}
	go func() {
		next := refreshEvery
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(next):
			}
			if e, err := write(ctx, c, namespace, name, path); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Error(err, "refreshing the ServiceAccount token; the current one expires", "expiry", expiry)
				next = retryAfter
			} else {
				expiry, next = e, refreshEvery
			}
		}
	}()
	return nil
}

// write mints a token and replaces path with it in one rename, so that a
// reader never sees half a token.
func write(ctx context.Context, c client.Client, namespace, name, path string) (time.Time, error) {
	token, expiry, err := Request(ctx, c, namespace, name, Lifetime)
	if err != nil {
		return time.Time{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return time.Time{}, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(token); err != nil {
		tmp.Close()
		return time.Time{}, err
	}
	if err := tmp.Close(); err != nil {
		return time.Time{}, err
	}
	return expiry, os.Rename(tmp.Name(), path)
}

// RestConfig reaches admin's API server (its address and CA) with the
// token in tokenFile only: no client certificate, no impersonation,
// nothing else of admin's identity. client-go rereads the file, so a
// refreshed token is picked up.
func RestConfig(admin *rest.Config, tokenFile string) *rest.Config {
	return &rest.Config{
		Host:            admin.Host,
		APIPath:         admin.APIPath,
		TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData, CAFile: admin.CAFile, ServerName: admin.ServerName},
		BearerTokenFile: tokenFile,
		QPS:             admin.QPS,
		Burst:           admin.Burst,
	}
}

// Kubeconfig is cfg (from RestConfig) as a kubeconfig file's content,
// for a process started with --kubeconfig.
func Kubeconfig(cfg *rest.Config) ([]byte, error) {
	const name = "serviceaccount"
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData,
		CertificateAuthority: cfg.CAFile, TLSServerName: cfg.ServerName}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{TokenFile: cfg.BearerTokenFile}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	kc.CurrentContext = name
	return clientcmd.Write(*kc)
}

// OtherCredentials names every credential cfg carries besides a bearer
// token (a client certificate, a basic-auth user, an impersonation, an
// exec or auth provider); a process meant to run as a ServiceAccount
// must have none.
func OtherCredentials(cfg *rest.Config) []string {
	var found []string
	for _, c := range []struct {
		name    string
		present bool
	}{
		{"client certificate", len(cfg.CertData) > 0 || cfg.CertFile != ""},
		{"client key", len(cfg.KeyData) > 0 || cfg.KeyFile != ""},
		{"basic auth", cfg.Username != "" || cfg.Password != ""},
		{"impersonation", cfg.Impersonate.UserName != "" || cfg.Impersonate.UID != "" || len(cfg.Impersonate.Groups) > 0},
		{"exec provider", cfg.ExecProvider != nil},
		{"auth provider", cfg.AuthProvider != nil},
	} {
		if c.present {
			found = append(found, c.name)
		}
	}
	return found
}

// WhoAmI is the user cfg authenticates as, as the API server sees it
// (SelfSubjectReview, what `kubectl auth whoami` asks).
func WhoAmI(ctx context.Context, cfg *rest.Config) (string, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	r, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("asking the API server who this is: %w", err)
	}
	return r.Status.UserInfo.Username, nil
}

// Allowed says whether cfg's user may do what attrs names
// (SelfSubjectAccessReview, what `kubectl auth can-i` asks).
func Allowed(ctx context.Context, cfg *rest.Config, attrs authorizationv1.ResourceAttributes) (bool, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return false, err
	}
	r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("asking the API server what this may do: %w", err)
	}
	return r.Status.Allowed, nil
}
