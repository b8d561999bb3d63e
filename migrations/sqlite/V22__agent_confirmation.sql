-- Whether an AI agent's costly call (a booking with a carrier) first asks the person using the
-- agent to confirm, when the agent's client can ask (DESIGN §12). On unless the organization
-- turns it off.
ALTER TABLE orgs ADD COLUMN agents_confirm_costly INTEGER NOT NULL DEFAULT 1;
