package install

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// Scheme has every kind install and uninstall read or write.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	utilruntime.Must(hcplinkv1beta1.AddToScheme(s))
	return s
}

// NewClient is a direct (uncached) client for Apply and Uninstall.
func NewClient(cfg *rest.Config) (client.Client, error) {
	return client.New(cfg, client.Options{Scheme: Scheme()})
}

// ServiceAccountName is the operator's ServiceAccount in install's
// namespace: a process running the operator outside the cluster (the
// local environment, tests) acts as it with a token minted for it
// (internal/satoken).
const ServiceAccountName = operatorName
