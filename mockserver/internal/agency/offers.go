package agency

import (
	"encoding/json"
	"slices"
	"time"

	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// Offer states.
const (
	offerDrafted   = "drafted"
	offerPreviewed = "previewed"
	offerPublished = "published"
	offerArchived  = "archived"
)

// offerCommands are the commands of POST /v1/agency-offers.
func (s *Service) offerCommands() map[string]agencyCommand {
	return map[string]agencyCommand{
		"save":    {run: s.offerSave},
		"preview": {run: s.offerPreview},
		"publish": {run: s.offerPublish},
		"archive": {run: s.offerArchive},
	}
}

// offerRef is the part every offer command but save has.
type offerRef struct {
	PartnerID        string `json:"partnerId"`
	OfferID          string `json:"offerId"`
	ExpectedRevision string `json:"expectedRevision"`
}

// offer resolves an offer command's agency (with one of roles) and offer.
func (cs *cmdState) offer(rc *httpapi.Ctx, ref offerRef, roles ...string) (*store.Offer, error) {
	pt, err := cs.member(rc, ref.PartnerID, roles...)
	if err != nil {
		return nil, err
	}
	o, ok := rc.Store.Offers.Get(ref.OfferID)
	if !ok || o.Owner != pt.ID {
		return nil, httpapi.NotFound("offer not found: " + ref.OfferID)
	}
	return o, nil
}

// liveOffer resolves an offer that is not archived, at the command's
// expectedRevision.
func (cs *cmdState) liveOffer(rc *httpapi.Ctx, ref offerRef, roles ...string) (*store.Offer, error) {
	o, err := cs.offer(rc, ref, roles...)
	if err != nil {
		return nil, err
	}
	if o.State == offerArchived {
		return nil, errState("the offer is archived")
	}
	if e := checkRevision(ref.ExpectedRevision, o.Revision); e != nil {
		return nil, e
	}
	return o, nil
}

func (s *Service) offerSave(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		offerRef
		Draft json.RawMessage `json:"draft"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	var o *store.Offer
	if body.OfferID == "" {
		if body.ExpectedRevision != "" {
			return nil, httpapi.InvalidField("/expectedRevision", "is only sent with offerId (to save an existing offer)")
		}
		if _, err := cs.member(rc, body.PartnerID, roleAdmin, roleOperator); err != nil {
			return nil, err
		}
	} else {
		if body.ExpectedRevision == "" {
			return nil, httpapi.InvalidField("/expectedRevision", "is required with offerId")
		}
		var err error
		if o, err = cs.liveOffer(rc, body.offerRef, roleAdmin, roleOperator); err != nil {
			return nil, err
		}
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	if o == nil {
		o = rc.Store.Offers.Insert(&store.Offer{}, cs.partner.ID, rc.Now)
	}
	var head struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(body.Draft, &head)
	o.Draft, o.Name, o.Fingerprint = canonicalJSON(body.Draft), head.Name, fingerprint(body.Draft)
	o.State, o.Revision, o.UpdatedAt = offerDrafted, s.IDs.UUID(), rc.Now.UTC()
	return s.receipt(rc, cs, map[string]any{"offer": offerView(rc.Store, o)}), nil
}

func (s *Service) offerPreview(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body offerRef
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	o, err := cs.offer(rc, body, roleAdmin, roleOperator)
	if err != nil {
		return nil, err
	}
	if o.State != offerDrafted && o.State != offerPreviewed {
		return nil, errState("the offer is %s; save a new draft to preview it again", o.State)
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	o.State, o.Revision, o.UpdatedAt, o.PreviewedAt = offerPreviewed, s.IDs.UUID(), rc.Now.UTC(), rc.Now.UTC()
	return s.receipt(rc, cs, map[string]any{"offer": offerView(rc.Store, o), "fingerprint": o.Fingerprint}), nil
}

func (s *Service) offerPublish(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		offerRef
		Fingerprint string `json:"fingerprint"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	o, err := cs.offer(rc, body.offerRef, roleAdmin)
	if err != nil {
		return nil, err
	}
	if o.State != offerPreviewed {
		return nil, errState("the offer is %s; only a previewed offer is published", o.State)
	}
	if e := checkRevision(body.ExpectedRevision, o.Revision); e != nil {
		return nil, e
	}
	if e := checkFingerprint(body.Fingerprint, o.Fingerprint); e != nil {
		return nil, e
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	var draft struct {
		Packages []store.OfferPackage `json:"packages"`
	}
	_ = json.Unmarshal(o.Draft, &draft)
	v := rc.Store.OfferVersions.Insert(&store.OfferVersion{OfferID: o.ID, Draft: o.Draft, Fingerprint: o.Fingerprint, Packages: draft.Packages},
		o.Owner, rc.Now)
	o.Versions = append(o.Versions, v.ID)
	o.State, o.Revision, o.UpdatedAt, o.PublishedAt = offerPublished, s.IDs.UUID(), rc.Now.UTC(), rc.Now.UTC()
	return s.receipt(rc, cs, map[string]any{"offer": offerView(rc.Store, o), "offerVersion": offerVersionView(v)}), nil
}

func (s *Service) offerArchive(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body offerRef
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	o, err := cs.liveOffer(rc, body, roleAdmin)
	if err != nil {
		return nil, err
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	o.State, o.Revision, o.UpdatedAt, o.ArchivedAt = offerArchived, s.IDs.UUID(), rc.Now.UTC(), rc.Now.UTC()
	return s.receipt(rc, cs, map[string]any{"offer": offerView(rc.Store, o)}), nil
}

// offerVersionFor resolves a published offer version for an enrollment:
// 404 when unknown (or, with partnerID set, another agency's), 409 when its
// offer was archived.
func offerVersionFor(st *store.Store, id, partnerID string) (*store.OfferVersion, error) {
	v, ok := st.OfferVersions.Get(id)
	if !ok || (partnerID != "" && v.Owner != partnerID) {
		return nil, httpapi.NotFound("offer version not found: " + id)
	}
	if o, ok := st.Offers.Get(v.OfferID); ok && o.State == offerArchived {
		return nil, errState("the offer of version %s is archived", id)
	}
	return v, nil
}

// versionPackage returns an offer version's package with the key.
func versionPackage(v *store.OfferVersion, key string) (store.OfferPackage, bool) {
	i := slices.IndexFunc(v.Packages, func(p store.OfferPackage) bool { return p.Key == key })
	if i < 0 {
		return store.OfferPackage{}, false
	}
	return v.Packages[i], true
}

// getAgencyOffers is GET /v1/agency-offers: a page of the agency's offers
// (newest first, 50 a page, after = the last offerId seen), or one offer
// with ?id=.
func (s *Service) getAgencyOffers(rc *httpapi.Ctx) (any, error) {
	pt, err := agencyRead(rc, false)
	if err != nil {
		return nil, err
	}
	if rc.Query("id") != "" {
		o, err := getByID(rc, rc.Store.Offers, pt.ID, "offer")
		if err != nil {
			return nil, err
		}
		return offerView(rc.Store, o), nil
	}
	offers, more, err := agencyPage(rc, rc.Store.Offers, pt.ID, agencyOfferPage, func(o *store.Offer) *offerJSON {
		return offerView(rc.Store, o)
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"offers": offers, "has_more": more, "operations": operationsOf(rc.Store, pt.ID, "offers")}, nil
}

// offerJSON is an offer as reads and receipts show it, its members in the
// order of the OpenAPI document's Offer.
type offerJSON struct {
	OfferID            string              `json:"offerId"`
	PartnerID          string              `json:"partnerId"`
	State              string              `json:"state"`
	Name               string              `json:"name"`
	Draft              json.RawMessage     `json:"draft"`
	Fingerprint        string              `json:"fingerprint"`
	Revision           string              `json:"revision"`
	PublishedVersionID *string             `json:"publishedVersionId"`
	Versions           []*sdk.OfferVersion `json:"versions"`
	CreatedAt          time.Time           `json:"createdAt"`
	UpdatedAt          time.Time           `json:"updatedAt"`
	PreviewedAt        *time.Time          `json:"previewedAt"`
	PublishedAt        *time.Time          `json:"publishedAt"`
	ArchivedAt         *time.Time          `json:"archivedAt"`
}

// offerView is an offer with its latest published versions.
func offerView(st *store.Store, o *store.Offer) *offerJSON {
	versions := make([]*sdk.OfferVersion, 0, min(len(o.Versions), agencyVersionsShown))
	for i := len(o.Versions) - 1; i >= 0 && len(versions) < agencyVersionsShown; i-- {
		if v, ok := st.OfferVersions.Get(o.Versions[i]); ok {
			versions = append(versions, offerVersionView(v))
		}
	}
	var published *string
	if len(o.Versions) > 0 {
		id := o.Versions[len(o.Versions)-1]
		published = &id
	}
	return &offerJSON{
		OfferID: o.ID, PartnerID: o.Owner, State: o.State, Name: o.Name, Draft: o.Draft,
		Fingerprint: o.Fingerprint, Revision: o.Revision, PublishedVersionID: published,
		Versions: versions, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
		PreviewedAt: stampOrNull(o.PreviewedAt), PublishedAt: stampOrNull(o.PublishedAt),
		ArchivedAt: stampOrNull(o.ArchivedAt),
	}
}

// offerVersionView is a published offer version.
func offerVersionView(v *store.OfferVersion) *sdk.OfferVersion {
	var packages []sdk.Package
	if v.Packages != nil {
		packages = make([]sdk.Package, len(v.Packages))
		for i, p := range v.Packages {
			packages[i] = sdk.Package{Key: sdk.PackageKey(p.Key), Version: p.Version, Variant: p.Variant}
		}
	}
	return &sdk.OfferVersion{
		OfferVersionID: v.ID, OfferID: v.OfferID, Fingerprint: v.Fingerprint, Packages: packages, PublishedAt: v.CreatedAt,
	}
}
