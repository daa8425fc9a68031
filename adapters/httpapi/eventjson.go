package httpapi

import (
	"encoding/json"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// EventJSON writes events as partners read them (ports.EventEncoder): a
// webhook's body and a /v1/events entry carry the same data, the bytes of
// the report's /v1 receipt at the event (receiptOf, as every /v1 receipt),
// so a partner can handle both with one decoder. The composition root
// gives it to the delivery workers.
type EventJSON struct{}

var _ ports.EventEncoder = EventJSON{}

// eventData is an event's data: its receipt, without fields.
func eventData(e domain.Event) (json.RawMessage, error) { return json.Marshal(receiptOf(e.Receipt)) }

// webhookJSON is a delivery's body (Standard Webhooks: type, timestamp,
// data). timestamp is when the event happened, not when it is sent, so
// every attempt and redelivery of an event sends the same bytes.
type webhookJSON struct {
	Type      domain.EventType `json:"type"`
	Timestamp string           `json:"timestamp"`
	Data      json.RawMessage  `json:"data"`
}

// WebhookBody is a delivery's body: {"type", "timestamp", "data"}.
func (EventJSON) WebhookBody(e domain.Event) ([]byte, error) {
	data, err := eventData(e)
	if err != nil {
		return nil, err
	}
	return json.Marshal(webhookJSON{Type: e.Type, Timestamp: domain.ReceiptTime(e.CreatedAt), Data: data})
}

// eventJSON is an event as GET /v1/events lists it.
type eventJSON struct {
	ID        string           `json:"id"`
	Type      domain.EventType `json:"type"`
	CreatedAt string           `json:"created_at"`
	Data      json.RawMessage  `json:"data"`
}

func eventOf(e domain.Event) (eventJSON, error) {
	data, err := eventData(e)
	return eventJSON{ID: e.ID(), Type: e.Type, CreatedAt: domain.ReceiptTime(e.CreatedAt), Data: data}, err
}
