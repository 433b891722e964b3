/** The referrals area's entry: what routers, activities, the worker and other areas use of it. */
export { CaptureReferralBody, CreateReferralLinkBody, UpdateReferralLinkBody } from './inputs';
export { createReferralLinkService, recordReferralConversion } from './service';
