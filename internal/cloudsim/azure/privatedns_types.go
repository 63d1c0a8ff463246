package azure

// Wire shapes of Microsoft.Network/privateDnsZones ("properties" of each
// resource), as armprivatedns and azure-mgmt-privatedns encode them.

// zoneProperties are a private zone's properties. Everything is read-only:
// the counters are recomputed on each read from the store.
type zoneProperties struct {
	InternalID                                     string `json:"internalId,omitempty"`
	MaxNumberOfRecordSets                          int64  `json:"maxNumberOfRecordSets"`
	MaxNumberOfVirtualNetworkLinks                 int64  `json:"maxNumberOfVirtualNetworkLinks"`
	MaxNumberOfVirtualNetworkLinksWithRegistration int64  `json:"maxNumberOfVirtualNetworkLinksWithRegistration"`
	NumberOfRecordSets                             int64  `json:"numberOfRecordSets"`
	NumberOfVirtualNetworkLinks                    int64  `json:"numberOfVirtualNetworkLinks"`
	NumberOfVirtualNetworkLinksWithRegistration    int64  `json:"numberOfVirtualNetworkLinksWithRegistration"`
	ProvisioningState                              string `json:"provisioningState,omitempty"`
}

// linkProperties are a virtual network link's properties.
type linkProperties struct {
	VirtualNetwork          *subResource `json:"virtualNetwork,omitempty"`
	RegistrationEnabled     bool         `json:"registrationEnabled"`
	ResolutionPolicy        string       `json:"resolutionPolicy,omitempty"`
	VirtualNetworkLinkState string       `json:"virtualNetworkLinkState,omitempty"`
	ProvisioningState       string       `json:"provisioningState,omitempty"`
}

// subResource is a reference to another resource by ID.
type subResource struct {
	ID string `json:"id"`
}

// recordSetProperties are a record set's properties; only the records of
// the set's own type are kept.
type recordSetProperties struct {
	Metadata         map[string]string `json:"metadata,omitempty"`
	TTL              *int64            `json:"ttl,omitempty"`
	FQDN             string            `json:"fqdn,omitempty"`
	IsAutoRegistered bool              `json:"isAutoRegistered"`
	ARecords         []aRecord         `json:"aRecords,omitempty"`
	AAAARecords      []aaaaRecord      `json:"aaaaRecords,omitempty"`
	CNAMERecord      *cnameRecord      `json:"cnameRecord,omitempty"`
	MXRecords        []mxRecord        `json:"mxRecords,omitempty"`
	PTRRecords       []ptrRecord       `json:"ptrRecords,omitempty"`
	SOARecord        *soaRecord        `json:"soaRecord,omitempty"`
	SRVRecords       []srvRecord       `json:"srvRecords,omitempty"`
	TXTRecords       []txtRecord       `json:"txtRecords,omitempty"`
}

type aRecord struct {
	IPv4Address string `json:"ipv4Address"`
}

type aaaaRecord struct {
	IPv6Address string `json:"ipv6Address"`
}

type cnameRecord struct {
	CNAME string `json:"cname,omitempty"`
}

type mxRecord struct {
	Exchange   string `json:"exchange,omitempty"`
	Preference *int32 `json:"preference,omitempty"`
}

type ptrRecord struct {
	PTRDName string `json:"ptrdname,omitempty"`
}

type srvRecord struct {
	Port     *int32 `json:"port,omitempty"`
	Priority *int32 `json:"priority,omitempty"`
	Target   string `json:"target,omitempty"`
	Weight   *int32 `json:"weight,omitempty"`
}

type txtRecord struct {
	Value []string `json:"value,omitempty"`
}

// soaRecord fields are pointers so an update can leave some unchanged.
type soaRecord struct {
	Email        string `json:"email,omitempty"`
	ExpireTime   *int64 `json:"expireTime,omitempty"`
	Host         string `json:"host,omitempty"`
	MinimumTTL   *int64 `json:"minimumTtl,omitempty"`
	RefreshTime  *int64 `json:"refreshTime,omitempty"`
	RetryTime    *int64 `json:"retryTime,omitempty"`
	SerialNumber *int64 `json:"serialNumber,omitempty"`
}

// recordCount is the number of records of the given type in the set.
func (p *recordSetProperties) recordCount(recordType string) int {
	switch recordType {
	case recordA:
		return len(p.ARecords)
	case recordAAAA:
		return len(p.AAAARecords)
	case recordMX:
		return len(p.MXRecords)
	case recordPTR:
		return len(p.PTRRecords)
	case recordSRV:
		return len(p.SRVRecords)
	case recordTXT:
		return len(p.TXTRecords)
	case recordCNAME:
		if p.CNAMERecord != nil {
			return 1
		}
	case recordSOA:
		if p.SOARecord != nil {
			return 1
		}
	}
	return 0
}

// onlyType keeps the records of the set's own type and drops the others, as
// the service does with fields of other types.
func (p *recordSetProperties) onlyType(recordType string) {
	keep := *p
	*p = recordSetProperties{Metadata: keep.Metadata, TTL: keep.TTL}
	switch recordType {
	case recordA:
		p.ARecords = keep.ARecords
	case recordAAAA:
		p.AAAARecords = keep.AAAARecords
	case recordCNAME:
		p.CNAMERecord = keep.CNAMERecord
	case recordMX:
		p.MXRecords = keep.MXRecords
	case recordPTR:
		p.PTRRecords = keep.PTRRecords
	case recordSOA:
		p.SOARecord = keep.SOARecord
	case recordSRV:
		p.SRVRecords = keep.SRVRecords
	case recordTXT:
		p.TXTRecords = keep.TXTRecords
	}
}

// defaultSOA is the SOA record set of a new zone.
func defaultSOA(zone string) *recordSetProperties {
	ttl := defaultRecordSetTTL
	return &recordSetProperties{
		TTL:  &ttl,
		FQDN: recordSetFQDN(soaRecordSetName, zone),
		SOARecord: &soaRecord{
			Email: soaEmail, Host: soaHost,
			ExpireTime: int64p(soaExpire), MinimumTTL: int64p(soaMinimumTTL), RefreshTime: int64p(soaRefresh),
			RetryTime: int64p(soaRetry), SerialNumber: int64p(soaSerial),
		},
	}
}

// mergeSOA applies an update to the zone's SOA record: the host is
// read-only, omitted values keep their current value.
func mergeSOA(current, update *soaRecord) *soaRecord {
	merged := *current
	if update == nil {
		return &merged
	}
	if update.Email != "" {
		merged.Email = update.Email
	}
	for _, f := range []struct{ dst, src **int64 }{
		{&merged.ExpireTime, &update.ExpireTime}, {&merged.MinimumTTL, &update.MinimumTTL},
		{&merged.RefreshTime, &update.RefreshTime}, {&merged.RetryTime, &update.RetryTime},
		{&merged.SerialNumber, &update.SerialNumber},
	} {
		if *f.src != nil {
			*f.dst = *f.src
		}
	}
	return &merged
}

func int64p(v int64) *int64 { return &v }
