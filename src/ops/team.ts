/**
 * The --http server's team features, wired in one place: sign-in (static token or OAuth)
 * and the endpoints open without a token.
 */
import { createFrontDoor, type FrontDoor } from '../auth/front-door.js';
import type { OAuthSettings } from '../auth/settings.js';
import type { Runtime } from '../runtime.js';
import { bearerGuard, type HttpAccess } from '../transports/http-auth.js';

export function teamFrontDoor(_runtime: Runtime, access: HttpAccess, oauth: OAuthSettings | undefined): FrontDoor {
  return createFrontDoor({ staticToken: bearerGuard(access.token), oauth });
}
