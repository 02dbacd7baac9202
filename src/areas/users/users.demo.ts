import type { DemoContext } from '../area.js';
import { createUser } from './users.service.js';

/** An admin, an author, a moderator and a plain user, all with the demo password. */
export async function seedUsersDemo(ctx: DemoContext) {
  const { db, config, clock } = ctx;
  const people = [
    { key: 'admin', email: config.adminEmail, username: 'Ada Admin', unique_username: 'admin', privileges: ['Admin', 'User'] as const },
    { key: 'author', email: 'author@example.com', username: 'Arthur Author', unique_username: 'author', privileges: ['Author', 'User'] as const },
    { key: 'moderator', email: 'moderator@example.com', username: 'Mona Moderator', unique_username: 'moderator', privileges: ['Moderator', 'User'] as const },
    { key: 'user', email: 'user@example.com', username: 'Uma User', unique_username: 'user', privileges: ['User'] as const },
  ];
  for (const p of people) {
    ctx.users[p.key] = await createUser(db, config, clock, { email: p.email, password: ctx.password, username: p.username, unique_username: p.unique_username, privileges: [...p.privileges] });
  }
  ctx.log(`users: ${people.map((p) => p.email).join(', ')}`);
}
