package app

import "encoding/json"

// A delivery job's attempts take one of two lanes of delivery slots
// (deliverySlots): urgent, the default (transactional email), or
// background (a broadcast's emails), which yields slots to urgent ones.
// Jobs say which with their Background field, stored as "background".

// oldLaneField is how jobs stored before the lane had its name (issue 30)
// marked the background lane: "broadcast": true. Such jobs may still be
// queued or retrying when a newer carteiro starts, so they keep decoding.
type oldLaneField struct {
	Broadcast bool `json:"broadcast"`
}

// UnmarshalJSON reads a DeliverJob stored under either lane field name.
func (j *DeliverJob) UnmarshalJSON(b []byte) error {
	type fields DeliverJob // without this method
	return decodeLane(b, (*fields)(j), &j.Background)
}

// UnmarshalJSON reads a DeliverGroupJob stored under either lane field
// name.
func (j *DeliverGroupJob) UnmarshalJSON(b []byte) error {
	type fields DeliverGroupJob // without this method
	return decodeLane(b, (*fields)(j), &j.Background)
}

// decodeLane decodes a job's fields, then sets background when it was
// stored under the old name too.
func decodeLane(b []byte, fields any, background *bool) error {
	var old oldLaneField
	if err := json.Unmarshal(b, fields); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &old); err != nil {
		return err
	}
	*background = *background || old.Broadcast
	return nil
}
