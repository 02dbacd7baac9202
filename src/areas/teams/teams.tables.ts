import type { Generated } from 'kysely';

export interface TeamTable {
  teamid: Generated<number>;
  name: string;
  name_lower: string;
  description: string;
  owner: number;
  location: string;
  latitude: number | null;
  longitude: number | null;
  reputation: number;
  imageid: number | null;
  /** A user who knows it may add themself to the team. */
  join_code: string;
  created_date: number;
}

export interface TeamMemberTable {
  teamid: number;
  userid: number;
  is_lead: number;
  join_date: number;
}

/** A lead's addition waiting for the user's consent (accepted: it moves to team_members). */
export interface TeamInvitationTable {
  teamid: number;
  userid: number;
  is_lead: Generated<number>;
  invited_by: number | null;
  invited_date: number;
}

export interface TeamsTables {
  teams: TeamTable;
  team_members: TeamMemberTable;
  team_invitations: TeamInvitationTable;
}
