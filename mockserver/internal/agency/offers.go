package agency

import (
	"encoding/json"
	"slices"
	"time"

	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
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
		"save":    {input: inputOf[offerSaveInput]},
		"preview": {input: inputOf[offerPreviewInput]},
		"publish": {input: inputOf[offerPublishInput]},
		"archive": {input: inputOf[offerArchiveInput]},
	}
}

// offerRef is the part every offer command but save has.
type offerRef struct {
	PartnerID        string `json:"partnerId"`
	OfferID          string `json:"offerId"`
	ExpectedRevision string `json:"expectedRevision"`
}

// offer resolves an offer command's agency (with one of roles) and offer.
func (c *call) offer(tx *platform.Tx, ref offerRef, roles ...string) (*store.Offer, error) {
	pt, err := c.member(tx, ref.PartnerID, roles...)
	if err != nil {
		return nil, err
	}
	o, ok := tx.Offers.Get(ref.OfferID)
	if !ok || o.Owner != pt.ID {
		return nil, domain.NotFound("offer not found: " + ref.OfferID)
	}
	return o, nil
}

// liveOffer resolves an offer that is not archived, at the command's
// expectedRevision.
func (c *call) liveOffer(tx *platform.Tx, ref offerRef, roles ...string) (*store.Offer, error) {
	o, err := c.offer(tx, ref, roles...)
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

// offerSaveInput is the input of save: a new offer without offerId.
type offerSaveInput struct {
	offerRef
	Draft json.RawMessage `json:"draft"`
}

func (in offerSaveInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.saveOffer(tx, c, in)
}

// saveOffer saves a draft as a new offer, or as the new draft of an offer
// that is not archived (at its expectedRevision): the offer is drafted.
func (s *Service) saveOffer(tx *platform.Tx, c *call, in offerSaveInput) (map[string]any, error) {
	var o *store.Offer
	if in.OfferID == "" {
		if in.ExpectedRevision != "" {
			return nil, domain.InvalidField("/expectedRevision", "is only sent with offerId (to save an existing offer)")
		}
		if _, err := c.member(tx, in.PartnerID, roleAdmin, roleOperator); err != nil {
			return nil, err
		}
	} else {
		if in.ExpectedRevision == "" {
			return nil, domain.InvalidField("/expectedRevision", "is required with offerId")
		}
		var err error
		if o, err = c.liveOffer(tx, in.offerRef, roleAdmin, roleOperator); err != nil {
			return nil, err
		}
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	if o == nil {
		o = tx.Offers.Insert(&store.Offer{}, c.partner.ID, c.now)
	}
	var head struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(in.Draft, &head)
	o.Draft, o.Name, o.Fingerprint = canonicalJSON(in.Draft), head.Name, fingerprint(in.Draft)
	o.State, o.Revision, o.UpdatedAt = offerDrafted, s.IDs.UUID(), c.now.UTC()
	return s.receipt(c, map[string]any{"offer": offerView(tx, o)}), nil
}

// offerPreviewInput is the input of preview.
type offerPreviewInput offerRef

func (in offerPreviewInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.previewOffer(tx, c, in)
}

// previewOffer marks a drafted (or previewed) offer previewed and shows
// the fingerprint a publish must name.
func (s *Service) previewOffer(tx *platform.Tx, c *call, in offerPreviewInput) (map[string]any, error) {
	o, err := c.offer(tx, offerRef(in), roleAdmin, roleOperator)
	if err != nil {
		return nil, err
	}
	if o.State != offerDrafted && o.State != offerPreviewed {
		return nil, errState("the offer is %s; save a new draft to preview it again", o.State)
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	o.State, o.Revision, o.UpdatedAt, o.PreviewedAt = offerPreviewed, s.IDs.UUID(), c.now.UTC(), c.now.UTC()
	return s.receipt(c, map[string]any{"offer": offerView(tx, o), "fingerprint": o.Fingerprint}), nil
}

// offerPublishInput is the input of publish.
type offerPublishInput struct {
	offerRef
	Fingerprint string `json:"fingerprint"`
}

func (in offerPublishInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.publishOffer(tx, c, in)
}

// publishOffer publishes exactly what was previewed as a new offer
// version: an admin's command on a previewed offer, at its revision and
// with its fingerprint.
func (s *Service) publishOffer(tx *platform.Tx, c *call, in offerPublishInput) (map[string]any, error) {
	o, err := c.offer(tx, in.offerRef, roleAdmin)
	if err != nil {
		return nil, err
	}
	if o.State != offerPreviewed {
		return nil, errState("the offer is %s; only a previewed offer is published", o.State)
	}
	if e := checkRevision(in.ExpectedRevision, o.Revision); e != nil {
		return nil, e
	}
	if e := checkFingerprint(in.Fingerprint, o.Fingerprint); e != nil {
		return nil, e
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	var draft struct {
		Packages []store.OfferPackage `json:"packages"`
	}
	_ = json.Unmarshal(o.Draft, &draft)
	v := tx.OfferVersions.Insert(&store.OfferVersion{OfferID: o.ID, Draft: o.Draft, Fingerprint: o.Fingerprint, Packages: draft.Packages},
		o.Owner, c.now)
	o.Versions = append(o.Versions, v.ID)
	o.State, o.Revision, o.UpdatedAt, o.PublishedAt = offerPublished, s.IDs.UUID(), c.now.UTC(), c.now.UTC()
	return s.receipt(c, map[string]any{"offer": offerView(tx, o), "offerVersion": offerVersionView(v)}), nil
}

// offerArchiveInput is the input of archive.
type offerArchiveInput offerRef

func (in offerArchiveInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.archiveOffer(tx, c, in)
}

// archiveOffer archives an offer: an admin's command; its versions are no
// longer enrolled.
func (s *Service) archiveOffer(tx *platform.Tx, c *call, in offerArchiveInput) (map[string]any, error) {
	o, err := c.liveOffer(tx, offerRef(in), roleAdmin)
	if err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	o.State, o.Revision, o.UpdatedAt, o.ArchivedAt = offerArchived, s.IDs.UUID(), c.now.UTC(), c.now.UTC()
	return s.receipt(c, map[string]any{"offer": offerView(tx, o)}), nil
}

// offerVersionFor resolves a published offer version for an enrollment:
// 404 when unknown (or, with partnerID set, another agency's), 409 when its
// offer was archived.
func offerVersionFor(tx *platform.Tx, id, partnerID string) (*store.OfferVersion, error) {
	v, ok := tx.OfferVersions.Get(id)
	if !ok || (partnerID != "" && v.Owner != partnerID) {
		return nil, domain.NotFound("offer version not found: " + id)
	}
	if o, ok := tx.Offers.Get(v.OfferID); ok && o.State == offerArchived {
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
		o, err := getByID(rc, rc.Tx.Offers, pt.ID, "offer")
		if err != nil {
			return nil, err
		}
		return offerView(rc.Tx, o), nil
	}
	offers, more, err := agencyPage(rc, rc.Tx.Offers, pt.ID, agencyOfferPage, func(o *store.Offer) *offerJSON {
		return offerView(rc.Tx, o)
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"offers": offers, "has_more": more, "operations": operationsOf(rc.Tx, pt.ID, "offers")}, nil
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
func offerView(tx *platform.Tx, o *store.Offer) *offerJSON {
	versions := make([]*sdk.OfferVersion, 0, min(len(o.Versions), agencyVersionsShown))
	for i := len(o.Versions) - 1; i >= 0 && len(versions) < agencyVersionsShown; i-- {
		if v, ok := tx.OfferVersions.Get(o.Versions[i]); ok {
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
