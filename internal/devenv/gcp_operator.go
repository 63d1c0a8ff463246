package devenv

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/install"
	"github.com/hcplink/hcplink/internal/operator"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
)

// The management operator on GCP is configured by what `hcplink install
// --private-platform GCP` renders for devenv's management cluster (its
// project, region, network and key file), not by flags devenv writes
// itself: the Deployment's --private-platform and --gcp-* arguments, with
// the Secret volumes it mounts laid out as the kubelet would mount them.

// gcpInstallOptions are what a user gives install for devenv's management
// cluster: the place, and the operator's service account key.
func (e *Env) gcpInstallOptions() install.Options {
	return install.Options{Namespace: operatorNamespace, PrivatePlatform: operator.PlatformGCP,
		GCP: install.GCPCredentials{Project: e.GCPManagement.Project, Region: GCPRegion, Network: e.GCPManagement.Network,
			KeyFile: e.gcp.operatorKey}}
}

// renderGCPOperatorFlags renders install's objects for opts and returns
// the operator container's GCP flags, its Secret volumes mounted under
// root (stand-in for the kubelet) and the flags' paths moved there.
func renderGCPOperatorFlags(opts install.Options, root string) ([]string, error) {
	objs, err := install.Objects(opts)
	if err != nil {
		return nil, fmt.Errorf("rendering install's objects: %w", err)
	}
	var deploy *appsv1.Deployment
	secrets := map[string]*corev1.Secret{}
	for _, o := range objs {
		switch v := o.(type) {
		case *appsv1.Deployment:
			deploy = v
		case *corev1.Secret:
			secrets[v.Name] = v
		}
	}
	if deploy == nil {
		return nil, fmt.Errorf("install renders no Deployment")
	}
	return gcpOperatorFlags(deploy, secrets, root)
}

// gcpOperatorFlags are the Deployment's operator container's
// --private-platform and --gcp-* arguments. Each Secret volume the
// container mounts is written under root/<volume>, and a flag's value
// inside a mount points at the file written there.
func gcpOperatorFlags(deploy *appsv1.Deployment, secrets map[string]*corev1.Secret, root string) ([]string, error) {
	spec := deploy.Spec.Template.Spec
	if len(spec.Containers) == 0 {
		return nil, fmt.Errorf("Deployment %s has no container", deploy.Name)
	}
	c := spec.Containers[0]
	mounted := map[string]string{} // mount path → where devenv laid it out
	for _, m := range c.VolumeMounts {
		for _, v := range spec.Volumes {
			if v.Name != m.Name || v.Secret == nil {
				continue
			}
			s := secrets[v.Secret.SecretName]
			if s == nil {
				return nil, fmt.Errorf("volume %s mounts Secret %s, which install does not render", v.Name, v.Secret.SecretName)
			}
			dir := filepath.Join(root, v.Name)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, err
			}
			for key, data := range s.Data {
				if err := os.WriteFile(filepath.Join(dir, key), data, 0o600); err != nil {
					return nil, err
				}
			}
			mounted[strings.TrimSuffix(m.MountPath, "/")] = dir
		}
	}
	var flags []string
	for _, arg := range append(append([]string{}, c.Command...), c.Args...) {
		if !strings.HasPrefix(arg, "--private-platform=") && !strings.HasPrefix(arg, "--gcp-") {
			continue
		}
		name, value, _ := strings.Cut(arg, "=")
		for mountPath, dir := range mounted {
			if rest, ok := strings.CutPrefix(value, mountPath+"/"); ok {
				value = filepath.Join(dir, rest)
			}
		}
		flags = append(flags, name+"="+value)
	}
	if len(flags) == 0 {
		return nil, fmt.Errorf("Deployment %s carries no GCP flags", deploy.Name)
	}
	return flags, nil
}

// gcpOptionsFromFlags reads the operator's GCP options from its flags the
// way `hcplink operator` reads them (cmd/hcplink/operator.go): a flag
// install renders that this does not know is an error, so the two cannot
// drift apart unseen. The key file is read as the operator reads it.
func gcpOptionsFromFlags(flags []string) (gcpplatform.Options, error) {
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o gcpplatform.Options
	var platform, natSubnets, keyFile string
	fs.StringVar(&platform, "private-platform", "", "")
	fs.StringVar(&o.Project, "gcp-project", "", "")
	fs.StringVar(&o.Region, "gcp-region", "", "")
	fs.StringVar(&o.Network, "gcp-network", "", "")
	fs.StringVar(&natSubnets, "gcp-nat-subnets", "", "")
	fs.StringVar(&keyFile, "gcp-credentials-file", "", "")
	if err := fs.Parse(flags); err != nil {
		return o, fmt.Errorf("install's operator flags %v: %w", flags, err)
	}
	if platform != operator.PlatformGCP {
		return o, fmt.Errorf("install's Deployment runs the operator for %q, not GCP", platform)
	}
	if natSubnets != "" {
		o.NATSubnets = strings.Split(natSubnets, ",")
	}
	if keyFile != "" {
		key, err := os.ReadFile(keyFile)
		if err != nil {
			return o, fmt.Errorf("--gcp-credentials-file: %w", err)
		}
		o.Cloud = gcpcloud.Config{CredentialsJSON: key}
	}
	return o, nil
}
