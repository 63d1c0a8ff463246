package aws

func init() {
	registerQuery("ec2", "DescribeAvailabilityZones", describeAvailabilityZones)
	registerQuery("ec2", "DescribeRegions", describeRegions)
}

type ec2ZoneItem struct {
	ZoneName   string `xml:"zoneName"`
	ZoneID     string `xml:"zoneId"`
	ZoneState  string `xml:"zoneState"`
	RegionName string `xml:"regionName"`
	ZoneType   string `xml:"zoneType"`
	OptIn      string `xml:"optInStatus"`
}

type describeAvailabilityZonesResult struct {
	Zones []ec2ZoneItem `xml:"availabilityZoneInfo>item"`
}

func describeAvailabilityZones(call *Call) (any, *APIError) {
	names, ids, filters := call.List("ZoneName"), call.List("ZoneId"), call.Filters()
	var out describeAvailabilityZonesResult
	for _, z := range call.Region.Zones {
		if (len(names) > 0 && !contains(names, z.Name)) || (len(ids) > 0 && !contains(ids, z.ID)) {
			continue
		}
		ok, err := MatchFilters(filters, nil, func(name string) ([]string, bool) {
			switch name {
			case "zone-name":
				return []string{z.Name}, true
			case "zone-id":
				return []string{z.ID}, true
			case "region-name":
				return []string{call.Region.Name}, true
			case "state":
				return []string{"available"}, true
			case "zone-type":
				return []string{"availability-zone"}, true
			}
			return nil, false
		})
		if err != nil {
			return nil, err
		}
		if ok {
			out.Zones = append(out.Zones, ec2ZoneItem{ZoneName: z.Name, ZoneID: z.ID, ZoneState: "available",
				RegionName: call.Region.Name, ZoneType: "availability-zone", OptIn: "opt-in-not-required"})
		}
	}
	for _, n := range names {
		if _, ok := call.Region.ZoneByName(n); !ok {
			return nil, errBadRequest("InvalidParameterValue", "Invalid availability zone: [%s]", n)
		}
	}
	return out, nil
}

// knownRegions are the regions DescribeRegions lists; any region name works
// for requests, these are just the ones advertised.
var knownRegions = []string{"us-east-1", "us-east-2", "us-west-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2", "ap-northeast-1"}

type describeRegionsResult struct {
	Regions []struct {
		Name     string `xml:"regionName"`
		Endpoint string `xml:"regionEndpoint"`
		OptIn    string `xml:"optInStatus"`
	} `xml:"regionInfo>item"`
}

func describeRegions(call *Call) (any, *APIError) {
	var out describeRegionsResult
	wanted := call.List("RegionName")
	for _, r := range knownRegions {
		if len(wanted) > 0 && !contains(wanted, r) {
			continue
		}
		out.Regions = append(out.Regions, struct {
			Name     string `xml:"regionName"`
			Endpoint string `xml:"regionEndpoint"`
			OptIn    string `xml:"optInStatus"`
		}{r, "ec2." + r + ".amazonaws.com", "opt-in-not-required"})
	}
	return out, nil
}
