// Package layers holds no code: its tests keep the module's layers apart.
//
//   - The CLI's libraries (diagnose, demo, bench, infra) import no
//     controller package, so that what they share with the operators —
//     Kubernetes names, cloud names and tags, permission tables, intervals —
//     lives in api/v1beta1, internal/cloud/<cloud> and the other shared
//     packages, where a reader finds it once (cluster-api's clusterctl
//     imports no controller either).
//   - The management operator's generic packages (internal/operator, its
//     hostedcluster, nodepool and platform packages) name no cloud: no
//     cloud package, SDK, descriptor or cloud controller among their
//     imports, and no cloud's member of the API types. What differs per
//     cloud is in its descriptor, internal/operator/platform/<cloud>; the
//     registry is assembled in internal/operator/options.go, the one file
//     allowed to name them.
//   - The control-plane operator's generic packages (internal/controlplane,
//     its routers, credentials, hcpref and platform packages, and the
//     shared internal/reconcilekit) follow the same rule; their cloud's
//     part is internal/controlplane/platform/<cloud>, and the registry is
//     assembled in internal/controlplane/platforms.go.
//   - A place that still names a cloud is listed, with its reason, among
//     the layer's allowed places until it moves.
package layers
