package azure

import (
	"strings"
	"time"
)

// Virtual network links (Microsoft.Network/privateDnsZones/virtualNetworkLinks):
// a zone resolves names for the virtual networks linked to it. Creating a
// link is a long-running operation; the placement rules (one link per
// virtual network and zone name, one registration zone per virtual network)
// fail that operation, as the service does.

const (
	privateLinkType = "Microsoft.Network/privateDnsZones/virtualNetworkLinks"
	vnetJoinAction  = "Microsoft.Network/virtualNetworks/join/action"
)

func init() {
	Register(TypeSpec{
		Type:             privateLinkType,
		OperationKinds:   privateDNSOperations,
		APIVersions:      privateDNSAPIVersions,
		RequiresLocation: true,
		PlainETag:        true,
		Put:              putPrivateLink,
		Patch:            patchPrivateLink,
		Delete:           deletePrivateLink,
	})
}

func putPrivateLink(req *Request, existing *Resource) (*Reply, *Error) {
	var props linkProperties
	env, err := req.Envelope(&props)
	if err != nil {
		return nil, err
	}
	if err := checkGlobalLocation(env.Location); err != nil {
		return nil, err
	}
	if existing != nil {
		if err := notInTransition(existing); err != nil {
			return nil, err
		}
	}
	vnet, err := linkedVirtualNetwork(req, &props)
	if err != nil {
		return nil, err
	}
	props.VirtualNetwork = &subResource{ID: vnet.ID.String()}
	if props.ResolutionPolicy == "" {
		props.ResolutionPolicy = "Default"
	}
	props.VirtualNetworkLinkState = "InProgress"
	link := existing
	if link == nil {
		link = req.NewResource(env, &props)
	} else {
		link.Tags, link.Properties = env.Tags, &props
	}
	link.Location = privateDNSLocation
	return &Reply{Resource: link, Transition: linkTransition(req, link, existing == nil)}, nil
}

// linkedVirtualNetwork finds the virtual network a link names and checks
// the caller may join it (the linked authorization ARM asks of a link).
func linkedVirtualNetwork(req *Request, props *linkProperties) (*Resource, *Error) {
	if props.VirtualNetwork == nil || props.VirtualNetwork.ID == "" {
		return nil, BadRequest("BadRequest", "The virtual network of the virtual network link is required.")
	}
	vnet := req.Store.GetByString(props.VirtualNetwork.ID)
	if vnet == nil || !strings.EqualFold(vnet.Type, "Microsoft.Network/virtualNetworks") {
		return nil, BadRequest("BadRequest", "Virtual network resource not found for '%s'", props.VirtualNetwork.ID)
	}
	if err := req.AuthorizeLinked(vnetJoinAction, vnet.ID.String()); err != nil {
		return nil, err
	}
	return vnet, nil
}

// linkTransition is the link's long-running operation: it fails when the
// link breaks a placement rule or a limit, and completes otherwise.
func linkTransition(req *Request, link *Resource, creating bool) *Transition {
	state := "Updating"
	if creating {
		state = "Creating"
	}
	t := &Transition{State: state, Duration: req.Delay(DelayPrivateLinkCreating)}
	if fail := checkNewLink(req.Store, link); fail != nil {
		t.Fail = refusal(fail)
		return t
	}
	t.Done = func(_ *Cloud, _ time.Time) {
		if p, ok := link.Properties.(*linkProperties); ok {
			p.VirtualNetworkLinkState = "Completed"
		}
	}
	return t
}

// checkNewLink applies the placement rules and the zone's limits against
// every other live link (failed links are left out: they link nothing).
func checkNewLink(store *Store, link *Resource) *dnsRefusal {
	candidate := describeLink(link)
	var others []vnetLink
	var zoneLinks, zoneRegistrationLinks int
	for _, r := range store.Find(privateLinkType, nil) {
		if r.ProvisioningState == "Failed" || strings.EqualFold(r.ID.Key(), link.ID.Key()) {
			continue
		}
		other := describeLink(r)
		others = append(others, other)
		if strings.EqualFold(other.ZoneID, candidate.ZoneID) {
			zoneLinks++
			if other.Registration {
				zoneRegistrationLinks++
			}
		}
	}
	if err := checkLinkPlacement(candidate, others); err != nil {
		return err
	}
	return checkLinkLimits(candidate.ZoneName, candidate.Registration, zoneLinks, zoneRegistrationLinks)
}

func describeLink(r *Resource) vnetLink {
	zone := r.ID.Parent()
	l := vnetLink{ZoneID: zone.Key(), ZoneName: zone.Name(), LinkID: r.ID.Key()}
	if p, ok := r.Properties.(*linkProperties); ok {
		l.Registration = p.RegistrationEnabled
		if p.VirtualNetwork != nil {
			l.VNetID = p.VirtualNetwork.ID
		}
	}
	return l
}

// patchPrivateLink changes tags and registration, as VirtualNetworkLinks_Update does.
func patchPrivateLink(req *Request, link *Resource) (*Reply, *Error) {
	var body struct {
		Tags       map[string]string `json:"tags"`
		Properties *struct {
			RegistrationEnabled *bool  `json:"registrationEnabled"`
			ResolutionPolicy    string `json:"resolutionPolicy"`
		} `json:"properties"`
	}
	if err := req.Decode(&body); err != nil {
		return nil, err
	}
	if err := notInTransition(link); err != nil {
		return nil, err
	}
	if body.Tags != nil {
		link.Tags = body.Tags
	}
	p := link.Properties.(*linkProperties)
	if body.Properties == nil {
		return &Reply{Resource: link}, nil
	}
	if body.Properties.RegistrationEnabled != nil {
		p.RegistrationEnabled = *body.Properties.RegistrationEnabled
	}
	if body.Properties.ResolutionPolicy != "" {
		p.ResolutionPolicy = body.Properties.ResolutionPolicy
	}
	return &Reply{Resource: link, Transition: linkTransition(req, link, false)}, nil
}

func deletePrivateLink(req *Request, link *Resource) (*Reply, *Error) {
	if link.ProvisioningState == "Deleting" && link.Operation != nil {
		return &Reply{Transition: &Transition{State: "Deleting", Duration: link.Operation.End.Sub(req.Now), Remove: true}}, nil
	}
	return &Reply{Transition: &Transition{State: "Deleting", Duration: req.Delay(DelayPrivateLinkDeleting), Remove: true}}, nil
}
