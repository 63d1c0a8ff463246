package awsendpointservice

import (
	"context"
	"fmt"
	"sync"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/metrics"
	"github.com/hcplink/hcplink/internal/outcome"
)

const (
	// DefaultSweepInterval: see intervals.AWSEndpointServiceSweep.
	DefaultSweepInterval = intervals.AWSEndpointServiceSweep
	// DefaultSweepGracePeriod: a service must look orphaned this long
	// before it is removed, so that a service whose object is being
	// created (status not yet written, cache not yet synced) is never
	// taken. AWS reports no creation time for endpoint services, so the
	// sweeper remembers when it first saw each candidate.
	DefaultSweepGracePeriod = 10 * time.Minute
)

// OrphanKind is the kind label of the endpoint services the sweeper
// removes, in hcplink_orphans_deleted_total{component="operator"}.
const OrphanKind = "endpoint_service"

// Sweeper finds this management cluster's endpoint services (tagged
// hcplink.io/management-cluster=<ManagementClusterID>, besides
// hcplink.io/endpoint-service and kubernetes.io/cluster/<infraID>=owned)
// whose (infraID, name) no AWSEndpointService references, and removes
// them (rejecting their connections first). A service tagged for another
// management cluster, or for none, is never touched: several management
// clusters share one account and region, and each knows only its own
// objects. It is a manager Runnable on the leader.
type Sweeper struct {
	// Reader lists AWSEndpointServices and HostedClusters; use the
	// manager's API reader so that the answer is current.
	Reader client.Reader
	EC2    awscloud.EC2API
	// Provider deletes; nil is the Cache's, or one built from EC2.
	Provider *awscloud.EndpointServiceProvider
	// Cache is the controller's DescribeCache (its listing is reused).
	Cache *DescribeCache
	// Clock tells the time; nil is the real clock.
	Clock Clock
	// Interval between sweeps (zero: DefaultSweepInterval), jittered.
	Interval time.Duration
	// GracePeriod a candidate must stay orphaned (zero: DefaultSweepGracePeriod).
	GracePeriod time.Duration
	// ManagementClusterID is this management cluster's ID; only services
	// tagged with it are swept. Empty means unknown: nothing is swept.
	ManagementClusterID string

	mu        sync.Mutex
	firstSeen map[string]time.Time // service name → first seen orphaned
}

// NeedLeaderElection: only the leader deletes.
func (s *Sweeper) NeedLeaderElection() bool { return true }

// Start sweeps every Interval (jittered) until ctx ends.
func (s *Sweeper) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("endpoint-service-sweeper")
	ctx = ctrl.LoggerInto(ctx, log)
	interval := s.Interval
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	for {
		t := time.NewTimer(outcome.Jitter(interval))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		if _, err := s.Sweep(ctx); err != nil {
			log.Error(err, "sweeping orphaned endpoint services")
		}
	}
}

func (s *Sweeper) now() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock.Now()
}

func (s *Sweeper) provider() *awscloud.EndpointServiceProvider {
	switch {
	case s.Provider != nil:
		return s.Provider
	case s.Cache != nil && s.Cache.Provider != nil:
		return s.Cache.Provider
	}
	return awscloud.NewEndpointServiceProvider(s.EC2, nil)
}

// sweepable returns the owner of a service this management cluster may
// sweep: one carrying the ownership pair and its own management-cluster
// tag (never one with none or another's).
func sweepable(tags map[string]string, managementClusterID string) (awscloud.Owner, bool) {
	o, ok := awscloud.TaggedOwner(tags)
	if !ok || managementClusterID == "" || o.ManagementCluster != managementClusterID {
		return awscloud.Owner{}, false
	}
	return o, true
}

// Sweep runs one pass and returns the names of the services it removed.
func (s *Sweeper) Sweep(ctx context.Context) ([]string, error) {
	log := ctrl.LoggerFrom(ctx)
	if s.ManagementClusterID == "" {
		log.Info("not sweeping endpoint services: this management cluster's ID is unknown, so no service can be told to be its own (set --management-cluster-id)")
		return nil, nil
	}
	grace := s.GracePeriod
	if grace <= 0 {
		grace = DefaultSweepGracePeriod
	}
	services, err := s.Cache.Services(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing endpoint services: %w", err)
	}
	candidates := map[string]ec2types.ServiceConfiguration{}
	for _, svc := range services {
		if _, ok := sweepable(awscloud.TagMap(svc.Tags), s.ManagementClusterID); ok {
			candidates[awssdk.ToString(svc.ServiceName)] = svc
		}
	}
	if len(candidates) == 0 {
		s.forgetAllBut(nil)
		return nil, nil
	}
	referenced, unknownInfra, namesInUse, err := s.references(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var removed []string
	s.mu.Lock()
	if s.firstSeen == nil {
		s.firstSeen = map[string]time.Time{}
	}
	var due []ec2types.ServiceConfiguration
	for name, svc := range candidates {
		o, _ := sweepable(awscloud.TagMap(svc.Tags), s.ManagementClusterID)
		if referenced[owner{infraID: o.InfraID, name: o.Name}] || unknownInfra[o.Name] || namesInUse[name] {
			delete(s.firstSeen, name)
			continue
		}
		seen, ok := s.firstSeen[name]
		if !ok {
			s.firstSeen[name] = now
			continue
		}
		if now.Sub(seen) >= grace {
			due = append(due, svc)
		}
	}
	s.mu.Unlock()
	s.forgetAllBut(candidates)

	provider := s.provider()
	for _, svc := range due {
		name, id := awssdk.ToString(svc.ServiceName), awssdk.ToString(svc.ServiceId)
		o, _ := sweepable(awscloud.TagMap(svc.Tags), s.ManagementClusterID)
		gone, conns, err := provider.DeleteService(ctx, id)
		if err != nil {
			log.Error(err, "removing an orphaned endpoint service", "endpointServiceName", name, "infraID", o.InfraID, "awsEndpointService", o.Name)
			continue
		}
		if !gone {
			log.Info("orphaned endpoint service still has connections; rejected them, retrying on the next sweep", "endpointServiceName", name, "connections", conns)
			continue
		}
		s.Cache.ForgetService(name)
		s.mu.Lock()
		delete(s.firstSeen, name)
		s.mu.Unlock()
		metrics.OrphanDeleted("operator", OrphanKind)
		removed = append(removed, name)
		log.Info("deleted an orphaned endpoint service", "endpointServiceName", name, "infraID", o.InfraID, "awsEndpointService", o.Name)
	}
	return removed, nil
}

// forgetAllBut drops first-seen times of services no longer candidates.
func (s *Sweeper) forgetAllBut(candidates map[string]ec2types.ServiceConfiguration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.firstSeen {
		if _, ok := candidates[name]; !ok {
			delete(s.firstSeen, name)
		}
	}
}

// owner is the (infraID, object name) pair a service is tagged with.
type owner struct{ infraID, name string }

// references returns the (infraID, name) pairs of every AWSEndpointService
// in the cluster, the names of objects whose infraID cannot be told (they
// protect every service tagged with their name), and the service names
// recorded in status.
func (s *Sweeper) references(ctx context.Context) (referencedPairs map[owner]bool, unknownInfra, serviceNames map[string]bool, err error) {
	list := &hcplinkv1beta1.AWSEndpointServiceList{}
	if err := s.Reader.List(ctx, list); err != nil {
		return nil, nil, nil, fmt.Errorf("listing AWSEndpointServices: %w", err)
	}
	clusters := &hcplinkv1beta1.HostedClusterList{}
	if err := s.Reader.List(ctx, clusters); err != nil {
		return nil, nil, nil, fmt.Errorf("listing HostedClusters: %w", err)
	}
	infraByNamespace := map[string]string{}
	infraByCluster := map[string]string{}
	for _, hc := range clusters.Items {
		infraByNamespace[hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)] = hc.Spec.InfraID
		infraByCluster[hcplinkv1beta1.ClusterAnnotationValue(hc.Namespace, hc.Name)] = hc.Spec.InfraID
	}
	referenced, unknown, names := map[owner]bool{}, map[string]bool{}, map[string]bool{}
	for _, cr := range list.Items {
		if cr.Status.EndpointServiceName != "" {
			names[cr.Status.EndpointServiceName] = true
		}
		ids := map[string]bool{}
		for _, id := range []string{cr.Status.InfraID, cr.Annotations[ServiceInfraIDAnnotation], infraByCluster[cr.Annotations[hcplinkv1beta1.ClusterAnnotation]], infraByNamespace[cr.Namespace]} {
			if id != "" {
				ids[id] = true
			}
		}
		if len(ids) == 0 {
			// Unknown cluster: protect every service tagged with this name.
			unknown[cr.Name] = true
		}
		for id := range ids {
			referenced[owner{infraID: id, name: cr.Name}] = true
		}
	}
	return referenced, unknown, names, nil
}
