package v1beta1

// AWSEndpointAccessType says from where a cluster's API server is reachable.
//
// +kubebuilder:validation:Enum=Public;PublicAndPrivate;Private
type AWSEndpointAccessType string

const (
	// AWSEndpointAccessPublic serves the control plane from the internet
	// only; hcplink builds no private path.
	AWSEndpointAccessPublic AWSEndpointAccessType = "Public"
	// AWSEndpointAccessPublicAndPrivate serves the control plane from the
	// internet and, for workers, through AWS PrivateLink.
	AWSEndpointAccessPublicAndPrivate AWSEndpointAccessType = "PublicAndPrivate"
	// AWSEndpointAccessPrivate serves the control plane through AWS
	// PrivateLink only.
	AWSEndpointAccessPrivate AWSEndpointAccessType = "Private"
)

// AWSPlatformSpec is the AWS configuration of a cluster.
//
// +kubebuilder:validation:XValidation:rule="!has(self.endpointAccess) || self.endpointAccess == 'Public' || has(self.rolesRef)",message="rolesRef.controlPlaneOperatorARN is required when endpointAccess is PublicAndPrivate or Private: the endpoint service allows that role to connect",fieldPath=".rolesRef"
// +kubebuilder:validation:XValidation:rule="!has(self.endpointAccess) || self.endpointAccess == 'Public' || has(self.cloudProviderConfig)",message="cloudProviderConfig.vpc is required when endpointAccess is PublicAndPrivate or Private: the VPC endpoint is created in that VPC",fieldPath=".cloudProviderConfig"
// +kubebuilder:validation:XValidation:rule="!has(self.rolesRef) || self.rolesRef.controlPlaneOperatorARN.startsWith('arn:' + (self.region.startsWith('cn-') ? 'aws-cn' : (self.region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws')) + ':')",message="rolesRef.controlPlaneOperatorARN must be in the region's partition: arn:aws-cn: for cn-* regions, arn:aws-us-gov: for us-gov-* regions, arn:aws: otherwise",fieldPath=".rolesRef.controlPlaneOperatorARN"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.cloudProviderConfig) || (has(self.cloudProviderConfig) && self.cloudProviderConfig.vpc == oldSelf.cloudProviderConfig.vpc)",message="cloudProviderConfig.vpc is immutable once set",fieldPath=".cloudProviderConfig.vpc"
// +kubebuilder:validation:XValidation:rule="!has(self.additionalAllowedPrincipals) || self.additionalAllowedPrincipals.all(p, p == '*' || p.startsWith('arn:' + (self.region.startsWith('cn-') ? 'aws-cn' : (self.region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws')) + ':'))",message="additionalAllowedPrincipals must be in the region's partition: arn:aws-cn: for cn-* regions, arn:aws-us-gov: for us-gov-* regions, arn:aws: otherwise; a principal of another partition cannot connect to this region's endpoint services",fieldPath=".additionalAllowedPrincipals"
type AWSPlatformSpec struct {
	// region is the AWS region of the cluster's VPC, for example us-east-1.
	// It cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]{2}(-[a-z]+)+-[0-9]+$')",message="region must be an AWS region name such as us-east-1"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="region is immutable"
	Region string `json:"region"`

	// endpointAccess says from where the control plane is reachable: Public
	// (internet only, the default), PublicAndPrivate (internet, and
	// PrivateLink for workers) or Private (PrivateLink only). It can move
	// between PublicAndPrivate and Private; it cannot move between Public and
	// either of the others.
	//
	// +optional
	// +kubebuilder:default=Public
	// +kubebuilder:validation:XValidation:rule="self == oldSelf || (self != 'Public' && oldSelf != 'Public')",message="endpointAccess can change only between PublicAndPrivate and Private; changing between Public and PublicAndPrivate or Private is not supported"
	EndpointAccess AWSEndpointAccessType `json:"endpointAccess,omitempty"`

	// cloudProviderConfig locates the cluster's network: the VPC that the
	// workers (and the VPC endpoint) live in, and a default subnet and zone.
	// Required unless endpointAccess is Public.
	//
	// +optional
	CloudProviderConfig *AWSCloudProviderConfig `json:"cloudProviderConfig,omitempty"`

	// rolesRef holds the IAM roles hcplink acts through in the customer's
	// account. Required unless endpointAccess is Public.
	//
	// +optional
	RolesRef *AWSRolesRef `json:"rolesRef,omitempty"`

	// resourceTags are added to every AWS resource hcplink creates for this
	// cluster. At most 25; keys are unique. The prefixes aws: (reserved by
	// AWS), kubernetes.io/cluster/ and hcplink.io/ (set by hcplink itself to
	// find what it owns) are refused.
	//
	// +optional
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=25
	ResourceTags []AWSResourceTag `json:"resourceTags,omitempty"`

	// additionalAllowedPrincipals are IAM principals, besides the
	// control-plane operator role, allowed to create VPC endpoints to the
	// cluster's endpoint services. Each is an IAM ARN of an account root, a
	// role or a user, such as arn:aws:iam::123456789012:role/my-role, in the
	// region's partition (partitions are separate sets of regions, and an
	// ARN of another one names nothing in this one:
	// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html).
	// At most 50. A bare "*" is refused: it would let any AWS account connect.
	//
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=2048
	// +kubebuilder:validation:items:XValidation:rule="self != '*'",message="additionalAllowedPrincipals must not contain '*': it would let any AWS account connect to the cluster's endpoint services; list the IAM principal ARNs that may connect"
	// +kubebuilder:validation:items:XValidation:rule="self == '*' || self.matches('^arn:aws(-[a-z]+)*:iam::[0-9]{12}:(root|role/[A-Za-z0-9+=,.@_/-]+|user/[A-Za-z0-9+=,.@_/-]+)$')",message="additionalAllowedPrincipals entries must be IAM principal ARNs such as arn:aws:iam::123456789012:root, arn:aws:iam::123456789012:role/name or arn:aws:iam::123456789012:user/name"
	AdditionalAllowedPrincipals []string `json:"additionalAllowedPrincipals,omitempty"`
}

// AWSCloudProviderConfig locates the cluster's network in AWS.
type AWSCloudProviderConfig struct {
	// vpc is the ID of the VPC the workers live in, for example
	// vpc-0123456789abcdef0. It cannot change once set.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=21
	// +kubebuilder:validation:XValidation:rule="self.matches('^vpc-([0-9a-f]{8}|[0-9a-f]{17})$')",message="vpc must be a VPC ID: vpc- followed by 8 or 17 lowercase hexadecimal digits"
	VPC string `json:"vpc"`

	// subnet is the cluster's default subnet.
	//
	// +optional
	Subnet *AWSSubnetReference `json:"subnet,omitempty"`

	// zone is the availability zone of the default subnet, for example
	// us-east-1a.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9-]+$')",message="zone must be an availability zone name such as us-east-1a"
	Zone string `json:"zone,omitempty"`
}

// AWSSubnetReference names a subnet by ID.
type AWSSubnetReference struct {
	// id is the subnet ID: subnet- followed by 8 or 17 lowercase hexadecimal
	// digits.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=24
	// +kubebuilder:validation:XValidation:rule="self.matches('^subnet-([0-9a-f]{8}|[0-9a-f]{17})$')",message="id must be a subnet ID: subnet- followed by 8 or 17 lowercase hexadecimal digits"
	ID string `json:"id,omitempty"`
}

// AWSRolesRef holds the IAM roles hcplink acts through in the customer's
// account.
type AWSRolesRef struct {
	// controlPlaneOperatorARN is the role the control-plane operator assumes
	// to create the VPC endpoint, its security group and DNS records. The
	// operator allows this role (without its IAM path) to connect to the
	// endpoint service.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.matches('^arn:aws(-[a-z]+)*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]+$')",message="controlPlaneOperatorARN must be an IAM role ARN such as arn:aws:iam::123456789012:role/my-role"
	ControlPlaneOperatorARN string `json:"controlPlaneOperatorARN"`
}

// AWSResourceTag is a tag hcplink puts on the AWS resources it creates.
type AWSResourceTag struct {
	// key is the tag key: 1 to 128 characters from letters, digits and
	// _ . : / = + @ -. It must not start with aws:, kubernetes.io/cluster/
	// or hcplink.io/.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9A-Za-z_.:/=+@-]+$')",message="key may contain only letters, digits and the characters _ . : / = + @ -"
	// +kubebuilder:validation:XValidation:rule="!self.lowerAscii().startsWith('aws:')",message="key must not start with aws:, a prefix AWS reserves for its own tags"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('kubernetes.io/cluster/') && !self.startsWith('hcplink.io/')",message="key must not start with kubernetes.io/cluster/ or hcplink.io/: hcplink sets those tags itself to find the resources it owns"
	Key string `json:"key"`

	// value is the tag value: 1 to 256 characters from letters, digits and
	// _ . : / = + @ -.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9A-Za-z_.:/=+@-]+$')",message="value may contain only letters, digits and the characters _ . : / = + @ -"
	Value string `json:"value"`
}
