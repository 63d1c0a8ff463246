package v1beta1

// Reasons and messages every hcplink condition may carry. The reasons
// specific to one kind live next to that kind's condition types.
const (
	// AsExpectedReason: the condition holds and nothing needs attention.
	AsExpectedReason = "AsExpected"

	// AllIsWellMessage is the message of a condition that holds.
	AllIsWellMessage = "All is well"

	// ReconciliationPausedReason: spec.pausedUntil pauses the cluster, so the
	// controller left the object alone.
	ReconciliationPausedReason = "ReconciliationPaused"

	// ThrottledReason: the cloud throttled the controller; it backs off with
	// jitter and retries.
	ThrottledReason = "Throttled"

	// AccessDeniedReason: the cloud refused the controller's credentials or
	// permissions. The message names the missing permission; the controller
	// retries rarely until the permission is granted.
	AccessDeniedReason = "AccessDenied"

	// InvalidParameterReason: the cloud refused a value that came from user
	// input. The message names the field; the controller retries rarely.
	InvalidParameterReason = "InvalidParameter"

	// DeletingReason: the object is being deleted and its cloud resources
	// are being cleaned up.
	DeletingReason = "Deleting"

	// InternalErrorReason: an unexpected error; the condition is Unknown.
	InternalErrorReason = "InternalError"

	// CloudErrorReason: a cloud call failed for a reason no other reason
	// covers (the cloud failed, or refused for another reason); the message
	// has the error code and what to do.
	CloudErrorReason = "CloudError"

	// DependencyReason: the cloud cannot do it yet because another
	// resource depends on it or is changing (DependencyViolation, existing
	// connections); the controller retries after a growing delay.
	DependencyReason = "Dependency"

	// InvalidCredentialsReason (ValidCloudCredentials=False): the cloud
	// refused the credentials: a role that does not exist or does not trust
	// the service account, a revoked key.
	InvalidCredentialsReason = "InvalidCredentials"

	// IdentityNotConfiguredReason (ValidCloudCredentials=False): the
	// control-plane operator was given no cloud identity (on Azure, no
	// workload identity: the HostedCluster names none); it never falls
	// back to another credential, and calls the cloud not at all.
	IdentityNotConfiguredReason = "IdentityNotConfigured"

	// CredentialCheckFailedReason (ValidCloudCredentials=Unknown): the
	// check could not be made (the cloud did not answer, or throttled it).
	CredentialCheckFailedReason = "CredentialCheckFailed"

	// ValidCloudCredentialsCondition (on a HostedControlPlane, by the control-plane operator): True when its cloud credentials authenticate; False (InvalidCredentials) when the cloud refuses them.
	ValidCloudCredentialsCondition = "ValidCloudCredentials"
)
