package gcpiam

import (
	"context"
	"fmt"
	"io"
	"strings"

	"golang.org/x/oauth2"
	crm "google.golang.org/api/cloudresourcemanager/v1"
	iam "google.golang.org/api/iam/v1"
	"google.golang.org/api/option"
)

// Endpoints the commands call instead of Google's (cloudsim's URL +
// "/iam/" and "/cloudresourcemanager/"), read from the environment beside
// internal/cloud/gcp's.
const (
	EnvIAMEndpoint             = "HCPLINK_GCP_IAM_ENDPOINT"
	EnvResourceManagerEndpoint = "HCPLINK_GCP_RESOURCE_MANAGER_ENDPOINT"
)

// Clients are IAM's admin API and Cloud Resource Manager, signed in as the
// person or pipeline running the command.
type Clients struct {
	IAM             *iam.Service
	ResourceManager *crm.Service
	// TokenURI is where a key file made here signs in (Google's when
	// empty); cloudsim's URL + "/oauth2/token" on cloudsim. Only a key
	// file's reader uses it.
	TokenURI string
}

// NewClients builds the clients over tokens; an empty endpoint is Google's.
func NewClients(ctx context.Context, tokens oauth2.TokenSource, iamEndpoint, resourceManagerEndpoint string) (Clients, error) {
	opts := func(endpoint string) []option.ClientOption {
		o := []option.ClientOption{option.WithTokenSource(tokens)}
		if endpoint != "" {
			o = append(o, option.WithEndpoint(withSlash(endpoint)))
		}
		return o
	}
	iamSvc, err := iam.NewService(ctx, opts(iamEndpoint)...)
	if err != nil {
		return Clients{}, fmt.Errorf("building the IAM client: %w", err)
	}
	rm, err := crm.NewService(ctx, opts(resourceManagerEndpoint)...)
	if err != nil {
		return Clients{}, fmt.Errorf("building the Resource Manager client: %w", err)
	}
	return Clients{IAM: iamSvc, ResourceManager: rm}, nil
}

func withSlash(u string) string {
	if strings.HasSuffix(u, "/") {
		return u
	}
	return u + "/"
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
