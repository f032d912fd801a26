-- One row per notification request (its id is the request's): where its delivery stands.
-- It never holds the message's text: that is rendered in memory, for the provider only.

-- The SMS provider's deduplication id (an int32 it remembers for about 12 hours): drawn once
-- per delivery at its first attempt and reused by every retry. CYCLE: ids come back only
-- after 2^31 deliveries, long after the provider has forgotten them.
CREATE SEQUENCE deliveries_dedup_seq AS integer MINVALUE 1 MAXVALUE 2147483647 CYCLE;

CREATE TABLE deliveries (
    -- The provider knows an SMS delivery as userSuppliedId "thm<id>".
    id                  bigserial   PRIMARY KEY,
    request_id          uuid        NOT NULL UNIQUE,
    -- A user id, or 'support' for the support inbox's mail.
    user_id             text        NOT NULL CHECK (user_id <> ''),
    reference           text        NOT NULL DEFAULT '',
    channel             text        NOT NULL CHECK (channel IN ('email', 'sms', 'unspecified')),
    template            text        NOT NULL,
    -- An e-mail address or an E.164 number: shown to the sender ("SMS delivered to …").
    recipient           text        NOT NULL,
    status              text        NOT NULL CHECK (status IN ('queued', 'sent', 'delivered', 'failed')),
    attempts            integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    dedup_id            integer     NULL,
    provider_message_id text        NULL,
    failure_reason      text        NOT NULL DEFAULT '',
    source_service      text        NOT NULL DEFAULT '',
    first_attempt_at    timestamptz NULL,
    -- The lease of the attempt in progress: no other replica sends the request before it passes.
    claimed_until       timestamptz NULL,
    created_at          timestamptz NOT NULL,
    sent_at             timestamptz NULL,
    delivered_at        timestamptz NULL,
    failed_at           timestamptz NULL,
    updated_at          timestamptz NOT NULL
);

-- ListDeliveries: a user's deliveries about some references, newest first.
CREATE INDEX deliveries_user_reference_idx ON deliveries (user_id, reference, created_at DESC);
-- Delivery reports name the provider's message id.
CREATE INDEX deliveries_provider_message_idx ON deliveries (provider_message_id) WHERE provider_message_id IS NOT NULL;
-- The age of the oldest undelivered request (a metric) and the expiry of stale ones.
CREATE INDEX deliveries_queued_idx ON deliveries (created_at) WHERE status = 'queued';

-- The support inbox: the Help Center's Contact Us, /contact and /feedback.
CREATE TABLE support_messages (
    id             bigserial   PRIMARY KEY,
    ticket         text        NOT NULL UNIQUE CHECK (ticket ~ '^THM-[0-9A-HJKMNP-TV-Z]{6}$'),
    kind           text        NOT NULL CHECK (kind IN ('question', 'issue', 'feedback', 'contact')),
    name           text        NOT NULL DEFAULT '' CHECK (char_length(name) <= 100),
    email          text        NOT NULL DEFAULT '' CHECK (char_length(email) <= 254),
    subject        text        NOT NULL DEFAULT '' CHECK (char_length(subject) <= 200),
    message        text        NOT NULL CHECK (char_length(message) <= 5000),
    details        jsonb       NOT NULL DEFAULT '{}',
    user_id        uuid        NULL,
    -- The rate limit's key: the client's IPv4 address, or its IPv6 /64.
    client_address inet        NULL,
    created_at     timestamptz NOT NULL
);

-- The per-address rate limit counts an address's recent messages.
CREATE INDEX support_messages_client_idx ON support_messages (client_address, created_at);
-- … and a signed-in sender's, when the BFF passed no address.
CREATE INDEX support_messages_user_idx ON support_messages (user_id, created_at) WHERE user_id IS NOT NULL;
