// Package aws holds what every hcplink component needs to talk to AWS:
// loading the SDK configuration the standard way, Prometheus metrics on
// every call, and classification of AWS errors by code.
//
// Import it as awscloud:
//
//	import awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
package aws

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/hcplink/hcplink/internal/cloud/awshttp"
)

// responseTimeout bounds each HTTP call of a loaded configuration; a
// variable only so that a test need not wait for the real one.
var responseTimeout = awshttp.DefaultResponseTimeout

// LoadConfig loads an SDK configuration through the standard chain:
// environment (AWS_REGION, AWS_ENDPOINT_URL, keys, AWS_SHARED_CREDENTIALS_FILE,
// AWS_WEB_IDENTITY_TOKEN_FILE...), shared files (including web identity
// profiles with role_arn and web_identity_token_file), then the instance or
// container role. opts override the chain, for example config.WithRegion.
//
// Every client the configuration builds, the credential providers' own STS
// client included, has a response timeout (awshttp.LoadClient) unless opts
// name another HTTP client; its SDK retryer is Retryer (throttling.go).
func LoadConfig(ctx context.Context, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	opts = append([]func(*config.LoadOptions) error{config.WithHTTPClient(awshttp.LoadClient(responseTimeout))}, opts...)
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	useRetryer(&cfg) // see throttling.go
	return cfg, nil
}
