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
	"github.com/hcplink/hcplink/internal/satoken"
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
	client client.Client
	// apiServer is the API server's address and CA; a control-plane
	// operator gets nothing else of it (serviceAccountKube).
	apiServer *rest.Config
	cloudURL  string
	workDir   string
	log       logr.Logger
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

// cpoIdentity is what a control-plane operator runs as: the platform its
// container's arguments name (--platform; "" when they name none), its
// pod's ServiceAccount (to the API server), the AWS credentials file of its
// Secret ("" when it mounts none), the Azure workload identity and the GCP
// projected token of its Deployment (zero when none).
type cpoIdentity struct {
	platform       string
	serviceAccount string
	awsCredentials string
	azure          azureWorkloadIdentity
	gcp            gcpWorkloadIdentity
}

type runningCPO struct {
	identity cpoIdentity  // what it was started with
	kube     *rest.Config // what it reaches the API server with
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
	identity := cpoIdentity{platform: platformArg(&deploy), serviceAccount: podServiceAccount(&deploy),
		awsCredentials: credentials, azure: azureIdentity, gcp: gcpIdentity}
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

// platformArg is the --platform the Deployment's container runs the
// control-plane operator with ("" when none, as an older management
// operator rendered it).
func platformArg(deploy *appsv1.Deployment) string {
	containers := deploy.Spec.Template.Spec.Containers
	if len(containers) == 0 {
		return ""
	}
	args := containers[0].Args
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--platform="); ok {
			return v
		}
		if a == "--platform" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// cloudSettings are the platforms' settings the pod would load: only the
// platform of identity when it names one (the others do not run), else
// every platform's.
func (r *cpoRunner) cloudSettings(ctx context.Context, namespace string, identity cpoIdentity) (map[string]cpplatform.Settings, error) {
	clouds := map[string]func() (any, error){
		awsplatform.Name: func() (any, error) { return r.awsConfig(namespace, identity.awsCredentials) },
		azureplatform.Name: func() (any, error) {
			return r.azureConfig(ctx, namespace, identity.azure)
		},
		gcpplatform.Name: func() (any, error) {
			// A nil factory must stay an untyped nil: the platform then
			// loads its own.
			f, err := r.gcpFactory(ctx, namespace, identity.gcp)
			if f == nil {
				return nil, err
			}
			return f, err
		},
	}
	platforms := map[string]cpplatform.Settings{}
	for name, load := range clouds {
		if identity.platform != "" && name != identity.platform {
			continue
		}
		cloud, err := load()
		if err != nil {
			return nil, err
		}
		platforms[name] = cpplatform.Settings{Cloud: cloud, DriftInterval: r.currentDriftInterval()}
	}
	return platforms, nil
}

func (r *cpoRunner) start(ctx context.Context, key types.NamespacedName, identity cpoIdentity) error {
	platforms, err := r.cloudSettings(ctx, key.Namespace, identity)
	if err != nil {
		return err
	}
	// The pod's logs go where the operators' go (Options.Log).
	runCtx, cancel := context.WithCancel(ctrl.LoggerInto(context.Background(), r.log.WithName("control-plane-operator")))
	kube, err := r.serviceAccountKube(runCtx, key.Namespace, identity.serviceAccount)
	if err != nil {
		cancel()
		return err
	}
	cpo := &runningCPO{identity: identity, kube: kube, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(cpo.done)
		err := controlplane.Run(runCtx, controlplane.Options{
			RestConfig:             kube,
			Namespace:              key.Namespace,
			MetricsBindAddress:     "0",
			HealthProbeBindAddress: "0",
			Platform:               identity.platform,
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

// serviceAccountKube is what the pod's container would reach the API
// server with: a token of its ServiceAccount, kept fresh in a file as the
// kubelet projects it (until ctx ends), and nothing else, so that exactly
// the Role the management operator renders applies.
func (r *cpoRunner) serviceAccountKube(ctx context.Context, namespace, serviceAccount string) (*rest.Config, error) {
	dir := filepath.Join(r.workDir, "pods", namespace)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tokenFile := filepath.Join(dir, "kube-api-access-token")
	if err := satoken.Keep(ctx, r.client, namespace, serviceAccount, tokenFile, r.log); err != nil {
		return nil, fmt.Errorf("minting the control-plane operator's token: %w", err)
	}
	return satoken.RestConfig(r.apiServer, tokenFile), nil
}

// podServiceAccount is the ServiceAccount the Deployment's pods run as:
// "default" when it names none, as Kubernetes defaults it.
func podServiceAccount(deploy *appsv1.Deployment) string {
	if sa := deploy.Spec.Template.Spec.ServiceAccountName; sa != "" {
		return sa
	}
	return "default"
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

// kube is what the control-plane operator of namespace reaches the API
// server with; nil when none runs there.
func (r *cpoRunner) kube(namespace string) *rest.Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cpo := r.running[types.NamespacedName{Namespace: namespace, Name: cpoName}]; cpo != nil {
		return cpo.kube
	}
	return nil
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
