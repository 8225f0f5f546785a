package catalog

import (
	"fmt"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// BenchmarkKnowledgeMatch is the cost a finished call pays to cite the
// knowledge base, with 1,000 entries in the business.
func BenchmarkKnowledgeMatch(b *testing.B) {
	tx := platform.New(platform.Config{}).WriteTx()
	defer tx.End()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		k := &store.KnowledgeEntry{Title: fmt.Sprint("Topic ", i), Content: "Answer number " + fmt.Sprint(i) +
			". Some more words about pricing, scheduling and service areas.", ContentType: "faq", Tags: []string{fmt.Sprint("tag", i)}}
		k.ID = fmt.Sprint(i)
		k.Words = knowledgeWords(k)
		tx.Knowledge.Insert(k, "biz", now)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if knowledgeMatch(tx, "biz", "Hi, what does tag500 cost?") == nil {
			b.Fatal("no match")
		}
	}
}
