package controlplane

import (
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	awsplatform "github.com/hcplink/hcplink/internal/controlplane/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/controlplane/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/controlplane/platform/gcp"
)

// Platforms is the registry of the platforms the control-plane operator
// serves. This file is the one of the operator's generic code that names
// the clouds (internal/layers checks it): a new cloud adds its descriptor
// package and one argument here.
func Platforms() *platform.Registry {
	return platform.New(awsplatform.Platform(), azureplatform.Platform(), gcpplatform.Platform())
}
