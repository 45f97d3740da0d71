// Where the header's "Working as" switch posts (routes/teams.working-as.ts): its own module, so the
// header (on every page) does not load the team forms' schemas.
export const WORKING_AS_ACTION = '/teams/working-as'
