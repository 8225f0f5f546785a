package agency

import (
	"context"
	"encoding/json"
	"iter"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Industry is an offer's industry.
type Industry string

// Industries.
const (
	IndustryLegal        Industry = "legal"
	IndustryHomeServices Industry = "home_services"
	IndustryNeutral      Industry = "neutral"
)

// PackageKey names a package of an offer.
type PackageKey string

// Packages. Enrolling into an offer with the care package needs sms:write.
const (
	PackageConvert PackageKey = "convert"
	PackageCare    PackageKey = "care"
	PackageImprove PackageKey = "improve"
)

// Claim is a claim an offer may make.
type Claim string

// Supported claims.
const (
	ClaimApprovedIntakeSetup         Claim = "approved_intake_setup"
	ClaimOwnerApprovedCampaignDrafts Claim = "owner_approved_campaign_drafts"
	ClaimRecordedActivityReporting   Claim = "recorded_activity_reporting"
)

// OfferState is where an offer is in its life.
type OfferState string

// Offer states: Save drafts, Preview previews, Publish publishes (a new
// offer version), Archive archives.
const (
	OfferDrafted   OfferState = "drafted"
	OfferPreviewed OfferState = "previewed"
	OfferPublished OfferState = "published"
	OfferArchived  OfferState = "archived"
)

// Retail is an offer's retail price. Currency (only USD) and Collection
// (only agency_external) are sent with those values when left empty.
type Retail struct {
	MonthlyCents int    `json:"monthlyCents"` // 0 to 100000000
	Currency     string `json:"currency"`
	Scope        string `json:"scope"` // what the price covers, 1-2000 characters
	Collection   string `json:"collection"`
}

// MarshalJSON fills the only allowed Currency and Collection when empty.
func (r Retail) MarshalJSON() ([]byte, error) {
	type plain Retail
	if r.Currency == "" {
		r.Currency = "USD"
	}
	if r.Collection == "" {
		r.Collection = "agency_external"
	}
	return json.Marshal(plain(r))
}

// Package is one package of an offer.
type Package struct {
	Key     PackageKey `json:"key"`
	Version string     `json:"version"` // 1-80 characters
	Variant string     `json:"variant"` // 1-80
}

// OfferDraft is the content of an offer; its fingerprint is
// Fingerprint(draft).
type OfferDraft struct {
	Name            string         `json:"name"` // 1-160 characters
	Industry        Industry       `json:"industry"`
	CommercialMode  CommercialMode `json:"commercialMode"`
	Retail          Retail         `json:"retail"`
	Packages        []Package      `json:"packages"`        // 1-3
	SupportedClaims []Claim        `json:"supportedClaims"` // 1-3, no duplicates
	SupportPolicy   string         `json:"supportPolicy"`   // 1-2000
	// BrandingLimitationsAcknowledged must be true.
	BrandingLimitationsAcknowledged bool `json:"brandingLimitationsAcknowledged"`
}

// Offer is a branded offer of the agency.
type Offer struct {
	OfferID   string     `json:"offerId"`
	PartnerID string     `json:"partnerId"`
	State     OfferState `json:"state"`
	Name      string     `json:"name"`
	Draft     OfferDraft `json:"draft"`
	// Fingerprint is the fingerprint of Draft (64 hex).
	Fingerprint string `json:"fingerprint"`
	// Revision is the ExpectedRevision of the next command (a uuid).
	Revision string `json:"revision"`
	// PublishedVersionID is the latest published version ("" if none):
	// enrollments name it.
	PublishedVersionID string `json:"publishedVersionId"`
	// Versions are the latest 10 published versions, newest first.
	Versions    []OfferVersion `json:"versions"`
	CreatedAt   time.Time      `json:"createdAt"`
	UpdatedAt   time.Time      `json:"updatedAt"`
	PreviewedAt *time.Time     `json:"previewedAt"`
	PublishedAt *time.Time     `json:"publishedAt"`
	ArchivedAt  *time.Time     `json:"archivedAt"`
}

// OfferVersion is an immutable published snapshot of an offer.
type OfferVersion struct {
	OfferVersionID string    `json:"offerVersionId"`
	OfferID        string    `json:"offerId"`
	Fingerprint    string    `json:"fingerprint"`
	Packages       []Package `json:"packages"`
	PublishedAt    time.Time `json:"publishedAt"`
}

// OfferReceipt is the answer of an offer command.
type OfferReceipt struct {
	ReceiptHeader
	Offer Offer `json:"offer"`
	// Fingerprint: preview, the fingerprint Publish must carry.
	Fingerprint string `json:"fingerprint,omitempty"`
	// OfferVersion: publish, the new version.
	OfferVersion *OfferVersion `json:"offerVersion,omitempty"`
}

// SaveOfferParams save a draft: a new offer without OfferID, otherwise the
// offer with OfferID at ExpectedRevision. Saving sends a previewed or
// published offer back to drafted (published versions stay).
type SaveOfferParams struct {
	PartnerID        string     `json:"partnerId"`
	OfferID          string     `json:"offerId,omitempty"`
	ExpectedRevision string     `json:"expectedRevision,omitempty"`
	Draft            OfferDraft `json:"draft"`
}

// OfferParams name an offer (Preview).
type OfferParams struct {
	PartnerID string `json:"partnerId"`
	OfferID   string `json:"offerId"`
}

// PublishOfferParams publish exactly the previewed draft (admin).
type PublishOfferParams struct {
	PartnerID        string `json:"partnerId"`
	OfferID          string `json:"offerId"`
	ExpectedRevision string `json:"expectedRevision"`
	Fingerprint      string `json:"fingerprint"`
}

// ArchiveOfferParams archive an offer (admin).
type ArchiveOfferParams struct {
	PartnerID        string `json:"partnerId"`
	OfferID          string `json:"offerId"`
	ExpectedRevision string `json:"expectedRevision"`
}

// OffersService manages offers (/v1/agency-offers).
type OffersService struct{ b *voiceagent.Backend }

// List returns a page of the agency's offers, newest first (50 a page).
func (s *OffersService) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Offer], error) {
	page, _, err := listPage(ctx, s.b, pathOffers, "offers", p, func(o *Offer) string { return o.OfferID }, opts)
	return page, err
}

// All walks every offer from p.After.
func (s *OffersService) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Offer, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Get reads one offer.
func (s *OffersService) Get(ctx context.Context, p *GetParams, opts ...voiceagent.Option) (*Offer, error) {
	return get[Offer](ctx, s.b, pathOffers, p, opts)
}

// Operations returns the latest retained offer commands of the agency.
func (s *OffersService) Operations(ctx context.Context, partnerID string, opts ...voiceagent.Option) ([]Operation, error) {
	return operations(ctx, s.b, pathOffers, partnerID, opts)
}

// Save creates or replaces a draft (admin or operator).
func (s *OffersService) Save(ctx context.Context, p *SaveOfferParams, opts ...voiceagent.Option) (*OfferReceipt, error) {
	return command[OfferReceipt](ctx, s.b, pathOffers, "save", p, opts)
}

// Preview marks the draft previewed and returns its fingerprint (admin or
// operator).
func (s *OffersService) Preview(ctx context.Context, p *OfferParams, opts ...voiceagent.Option) (*OfferReceipt, error) {
	return command[OfferReceipt](ctx, s.b, pathOffers, "preview", p, opts)
}

// Publish publishes the previewed draft as a new offer version.
func (s *OffersService) Publish(ctx context.Context, p *PublishOfferParams, opts ...voiceagent.Option) (*OfferReceipt, error) {
	return command[OfferReceipt](ctx, s.b, pathOffers, "publish", p, opts)
}

// Archive archives the offer: its versions take no new enrollments.
func (s *OffersService) Archive(ctx context.Context, p *ArchiveOfferParams, opts ...voiceagent.Option) (*OfferReceipt, error) {
	return command[OfferReceipt](ctx, s.b, pathOffers, "archive", p, opts)
}
