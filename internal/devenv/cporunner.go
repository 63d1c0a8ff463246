package devenv

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/controlplane"
	cpplatform "github.com/hcplink/hcplink/internal/controlplane/platform"
	awsplatform "github.com/hcplink/hcplink/internal/controlplane/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/controlplane/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/controlplane/platform/gcp"
)

// The control-plane operator's Deployment as the management operator makes it.
const (
	cpoName            = "control-plane-operator"
	cpoNameLabel       = "app.kubernetes.io/name"
	awsCredentialsKey  = "credentials"
	cpoStartupDeadline = 30 * time.Second
)

// cpoRunner stands in for the kubelet: for every control-plane-operator
// Deployment the management operator creates, it runs that control-plane
// operator in this process, with the Deployment's credentials, until the
// Deployment goes away.
type cpoRunner struct {
	client   client.Client
	admin    *rest.Config
	cloudURL string
	workDir  string
	log      logr.Logger
	// driftInterval overrides the control-plane operators' drift checks.
	driftInterval time.Duration
	// azure signs Azure control-plane operators in with their workload
	// identity (nil when devenv runs AWS).
	azure *azureEnv
	// gcp signs GCP control-plane operators in by workload identity
	// federation (nil unless devenv runs GCP).
	gcp *gcpEnv

	mu      sync.Mutex
	running map[types.NamespacedName]*runningCPO
	// held are the Deployments whose operator a test has stopped on purpose.
	held map[types.NamespacedName]bool
}

// cpoIdentity is what a control-plane operator signs in with: the AWS
// credentials file of its Secret ("" when it mounts none), the Azure
// workload identity and the GCP projected token of its Deployment (zero
// when none).
type cpoIdentity struct {
	awsCredentials string
	azure          azureWorkloadIdentity
	gcp            gcpWorkloadIdentity
}

type runningCPO struct {
	identity cpoIdentity // what it was started with
	cancel   context.CancelFunc
	done     chan struct{}
}

func (r *cpoRunner) SetupWithManager(mgr ctrl.Manager) error {
	isCPO := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[cpoNameLabel] == cpoName })
	return ctrl.NewControllerManagedBy(mgr).
		Named("devenv-kubelet").
		For(&appsv1.Deployment{}, builder.WithPredicates(isCPO)).
		Complete(r)
}

func (r *cpoRunner) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var deploy appsv1.Deployment
	err := r.client.Get(ctx, req.NamespacedName, &deploy)
	if apierrors.IsNotFound(err) || (err == nil && !deploy.DeletionTimestamp.IsZero()) {
		r.stop(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	credentials, err := r.awsCredentials(ctx, &deploy)
	if err != nil {
		return ctrl.Result{}, err
	}
	azureIdentity, err := azureWorkloadIdentityOf(&deploy)
	if err != nil {
		return ctrl.Result{}, err
	}
	gcpIdentity, err := gcpWorkloadIdentityOf(&deploy)
	if err != nil {
		return ctrl.Result{}, err
	}
	// A changed identity restarts the operator, as a rolled pod would.
	identity := cpoIdentity{awsCredentials: credentials, azure: azureIdentity, gcp: gcpIdentity}
	r.mu.Lock()
	current, held := r.running[req.NamespacedName], r.held[req.NamespacedName]
	r.mu.Unlock()
	if held {
		return ctrl.Result{}, nil
	}
	if current == nil || current.identity != identity {
		r.stop(req.NamespacedName)
		if err := r.start(ctx, req.NamespacedName, identity); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.markAvailable(ctx, &deploy)
}

// awsCredentials returns the credentials file from the Secret the
// Deployment mounts ("" when it mounts none, as for public clusters).
func (r *cpoRunner) awsCredentials(ctx context.Context, deploy *appsv1.Deployment) (string, error) {
	for _, v := range deploy.Spec.Template.Spec.Volumes {
		if v.Secret == nil {
			continue
		}
		var secret corev1.Secret
		if err := r.client.Get(ctx, types.NamespacedName{Namespace: deploy.Namespace, Name: v.Secret.SecretName}, &secret); err != nil {
			return "", fmt.Errorf("reading the control-plane operator's credentials %s: %w", v.Secret.SecretName, err)
		}
		if creds, ok := secret.Data[awsCredentialsKey]; ok {
			return string(creds), nil
		}
	}
	return "", nil
}

func (r *cpoRunner) start(ctx context.Context, key types.NamespacedName, identity cpoIdentity) error {
	awsConfig, err := r.awsConfig(key.Namespace, identity.awsCredentials)
	if err != nil {
		return err
	}
	azureConfig, err := r.azureConfig(ctx, key.Namespace, identity.azure)
	if err != nil {
		return err
	}
	gcpFactory, err := r.gcpFactory(ctx, key.Namespace, identity.gcp)
	if err != nil {
		return err
	}
	platforms := map[string]cpplatform.Settings{
		awsplatform.Name:   {Cloud: awsConfig, DriftInterval: r.currentDriftInterval()},
		azureplatform.Name: {Cloud: azureConfig, DriftInterval: r.currentDriftInterval()},
	}
	if gcpFactory != nil {
		platforms[gcpplatform.Name] = cpplatform.Settings{Cloud: gcpFactory, DriftInterval: r.currentDriftInterval()}
	}
	kube := rest.CopyConfig(r.admin)
	// Run with the ServiceAccount's identity so that its namespace-scoped
	// RBAC is enforced, as it would be in a real pod.
	kube.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + key.Namespace + ":" + cpoName,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + key.Namespace, "system:authenticated"},
	}
	runCtx, cancel := context.WithCancel(context.Background())
	cpo := &runningCPO{identity: identity, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(cpo.done)
		err := controlplane.Run(runCtx, controlplane.Options{
			RestConfig:             kube,
			Namespace:              key.Namespace,
			MetricsBindAddress:     "0",
			HealthProbeBindAddress: "0",
			Platforms:              platforms,
		})
		if err != nil && runCtx.Err() == nil {
			r.log.Error(err, "control-plane operator stopped", "namespace", key.Namespace)
		}
	}()
	r.mu.Lock()
	r.running[key] = cpo
	r.mu.Unlock()
	r.log.Info("started control-plane operator", "namespace", key.Namespace)
	return nil
}

// awsConfig builds the SDK configuration the pod would get: the mounted
// credentials file, with its web-identity token file pointed at a token
// minted for the CPO's ServiceAccount, and the cloud endpoint.
func (r *cpoRunner) awsConfig(namespace, credentials string) (*aws.Config, error) {
	if credentials == "" {
		return nil, nil
	}
	dir := filepath.Join(r.workDir, "pods", namespace)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tokenPath := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenPath, []byte(serviceAccountToken(namespace, cpoName, time.Now())), 0o600); err != nil {
		return nil, err
	}
	rewritten, region := rewriteTokenPath(credentials, tokenPath)
	credsPath := filepath.Join(dir, "credentials")
	if err := os.WriteFile(credsPath, []byte(rewritten), 0o600); err != nil {
		return nil, err
	}
	if region == "" {
		region = Region
	}
	ctx, cancel := context.WithTimeout(context.Background(), cpoStartupDeadline)
	defer cancel()
	cfg, err := awscloud.LoadConfig(ctx,
		config.WithSharedCredentialsFiles([]string{credsPath}),
		config.WithSharedConfigFiles([]string{credsPath}),
		config.WithRegion(region),
		config.WithBaseEndpoint(r.cloudURL),
	)
	if err != nil {
		return nil, fmt.Errorf("loading the control-plane operator's AWS configuration: %w", err)
	}
	return &cfg, nil
}

// rewriteTokenPath points web_identity_token_file at the minted token (the
// file names the in-pod mount path) and returns the region it names.
func rewriteTokenPath(credentials, tokenPath string) (string, string) {
	var out strings.Builder
	region := ""
	scanner := bufio.NewScanner(strings.NewReader(credentials))
	for scanner.Scan() {
		line := scanner.Text()
		key, value, ok := strings.Cut(line, "=")
		switch k := strings.TrimSpace(key); {
		case ok && k == "web_identity_token_file":
			line = "web_identity_token_file = " + tokenPath
		case ok && k == "region":
			region = strings.TrimSpace(value)
		}
		out.WriteString(line + "\n")
	}
	return out.String(), region
}

// markAvailable writes the status a kubelet and the deployment controller
// would, so that kubectl shows the operator as running.
func (r *cpoRunner) markAvailable(ctx context.Context, deploy *appsv1.Deployment) error {
	if deploy.Status.AvailableReplicas == 1 && deploy.Status.ObservedGeneration == deploy.Generation {
		return nil
	}
	patch := client.MergeFrom(deploy.DeepCopy())
	deploy.Status.ObservedGeneration = deploy.Generation
	deploy.Status.Replicas, deploy.Status.ReadyReplicas, deploy.Status.AvailableReplicas, deploy.Status.UpdatedReplicas = 1, 1, 1, 1
	return r.client.Status().Patch(ctx, deploy, patch)
}

func (r *cpoRunner) stop(key types.NamespacedName) {
	r.mu.Lock()
	cpo := r.running[key]
	delete(r.running, key)
	r.mu.Unlock()
	if cpo == nil {
		return
	}
	cpo.cancel()
	<-cpo.done
	r.log.Info("stopped control-plane operator", "namespace", key.Namespace)
}

// hold stops a control-plane operator and keeps it stopped until release.
func (r *cpoRunner) hold(key types.NamespacedName) {
	r.mu.Lock()
	r.held[key] = true
	r.mu.Unlock()
	r.stop(key)
}

// release lets a held control-plane operator run again; the caller
// triggers a reconcile of its Deployment.
func (r *cpoRunner) release(key types.NamespacedName) {
	r.mu.Lock()
	delete(r.held, key)
	r.mu.Unlock()
}

// stopAll stops every control-plane operator (at shutdown).
func (r *cpoRunner) stopAll() {
	r.mu.Lock()
	keys := make([]types.NamespacedName, 0, len(r.running))
	for k := range r.running {
		keys = append(keys, k)
	}
	r.mu.Unlock()
	for _, k := range keys {
		r.stop(k)
	}
}

// Running lists the namespaces whose control-plane operator runs now.
func (r *cpoRunner) Running() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k := range r.running {
		out = append(out, k.Namespace)
	}
	return out
}

func (r *cpoRunner) setDriftInterval(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.driftInterval = d
}

func (r *cpoRunner) currentDriftInterval() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.driftInterval
}
