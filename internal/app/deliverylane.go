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
	var v struct {
		fields
		oldLaneField
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*j = DeliverJob(v.fields)
	j.Background = j.Background || v.Broadcast
	return nil
}

// UnmarshalJSON reads a DeliverGroupJob stored under either lane field
// name.
func (j *DeliverGroupJob) UnmarshalJSON(b []byte) error {
	type fields DeliverGroupJob // without this method
	var v struct {
		fields
		oldLaneField
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*j = DeliverGroupJob(v.fields)
	j.Background = j.Background || v.Broadcast
	return nil
}
