// Every migration, in order. Areas add a line for each migration file they add;
// names start with a timestamp so that work on different areas never collides.
import type { Migration } from 'kysely';
import * as foundation from './2026_11_22_0000_foundation.js';
import * as glossary from './2026_11_22_1400_glossary.js';
import * as workLog from './2026_11_22_1410_work_log.js';
import * as sharedContent from './2026_11_22_0100_shared_content.js';
import * as comments from './2026_11_22_1110_comments.js';
import * as guides from './2026_11_22_1000_guides.js';
import * as guideCache from './2026_11_22_1420_guide_cache.js';
import * as unknownGuideFlags from './2026_11_23_1600_unknown_guide_flags.js';
import * as searchDiacritics from './2026_11_23_1610_search_diacritics.js';
import * as media from './2026_11_22_1200_media.js';
import * as mediaStorage from './2026_11_23_1300_media_storage.js';
import * as search from './2026_11_22_1130_search.js';
import * as searchGuides from './2026_11_22_1300_search_guides.js';
import * as searchTitlePrefix from './2026_11_22_1320_search_title_prefix.js';
import * as viewHistory from './2026_11_22_1120_view_history.js';
import * as wikis from './2026_11_22_1100_wikis.js';
import * as tokenRules from './2026_11_23_1200_token_rules.js';
import * as periodicReview from './2026_11_24_1300_periodic_review.js';
import * as courses from './2026_11_25_0100_courses.js';
import * as courseIds from './2026_12_04_1600_course_ids.js';
import * as courseAssigneeNames from './2026_11_25_0110_course_assignee_names.js';
import * as quizzes from './2026_11_25_0200_quizzes.js';
import * as skills from './2026_11_25_0210_skills.js';
import * as signoffs from './2026_11_25_0220_signoffs.js';
import * as trainingModules from './2026_11_25_0300_training_modules.js';
import * as searchTitleKey from './2026_11_25_0400_search_title_key.js';
import * as readStamps from './2026_11_25_0410_read_stamps.js';
import * as storedGuideRecords from './2026_11_25_0500_stored_guide_records.js';
import * as guideTitlesStamp from './2026_11_25_0510_guide_titles_stamp.js';
import * as wikiRecords from './2026_11_25_0600_wiki_records.js';
import * as searchBackgroundMerge from './2026_11_25_0700_search_background_merge.js';
import * as stampsInOrder from './2026_11_25_0710_stamps_in_order.js';
import * as stampsAtCommit from './2026_11_25_0720_stamps_at_commit.js';
import * as quizListSorts from './2026_11_25_0800_quiz_list_sorts.js';
import * as searchTitlesStamp from './2026_11_25_0810_search_titles_stamp.js';
import * as searchIndexLog from './2026_11_25_0900_search_index_log.js';
import * as dependentsWhenRequired from './2026_11_25_0910_dependents_when_required.js';
import * as storedRecordTags from './2026_11_26_1300_stored_record_tags.js';
import * as guideCommentsStamp from './2026_11_27_0100_guide_comments_stamp.js';
import * as searchTitleKeyNamespace from './2026_11_27_0110_search_title_key_namespace.js';
import * as courseReachStamp from './2026_11_27_0400_course_reach_stamp.js';
import * as triggerGenericPlans from './2026_11_27_0800_trigger_generic_plans.js';
import * as guideReachStamp from './2026_11_27_2100_guide_reach_stamp.js';
import * as stampShards from './2026_11_28_0100_stamp_shards.js';
import * as imageBookkeeping from './2026_11_28_1000_image_bookkeeping.js';
import * as commentsStampInserts from './2026_11_28_1700_comments_stamp_inserts.js';
import * as guideRowStamp from './2026_11_28_2200_guide_row_stamp.js';
import * as wikiExcerpts from './2026_11_23_1000_wiki_excerpts.js';
import * as formFieldsWorkLog from './2026_11_23_1500_form_fields_work_log.js';
import * as guideCacheNewLanguage from './2026_11_23_1510_guide_cache_new_language.js';
import * as approvals from './2026_11_24_1000_approvals.js';
import * as webhooks from './2026_11_24_1100_webhooks.js';
import * as categoryStamp from './2026_11_24_1400_category_stamp.js';
import * as teamOwnerIndex from './2026_12_03_1500_team_owner_index.js';
import * as oversight from './2026_12_04_1100_oversight.js';
import * as quizHtmlSanitized from './2026_12_04_1200_quiz_html_sanitized.js';
import * as tokenSessions from './2026_12_04_1400_token_sessions.js';
import * as guideReaderView from './2026_12_04_1000_guide_reader_view.js';
import * as rateLimits from './2026_12_05_0100_rate_limits.js';
import * as auditLog from './2026_12_04_1700_audit_log.js';
import * as signerNames from './2026_12_04_1800_signer_names.js';

export const migrations: Record<string, Migration> = {
  '2026_11_22_0000_foundation': foundation,
  '2026_11_22_0100_shared_content': sharedContent,
  '2026_11_22_1000_guides': guides,
  '2026_11_22_1100_wikis': wikis,
  '2026_11_22_1110_comments': comments,
  '2026_11_22_1120_view_history': viewHistory,
  '2026_11_22_1130_search': search,
  '2026_11_22_1200_media': media,
  '2026_11_22_1300_search_guides': searchGuides,
  '2026_11_22_1320_search_title_prefix': searchTitlePrefix,
  '2026_11_22_1400_glossary': glossary,
  '2026_11_22_1410_work_log': workLog,
  '2026_11_22_1420_guide_cache': guideCache,
  '2026_11_23_1200_token_rules': tokenRules,
  '2026_11_23_1000_wiki_excerpts': wikiExcerpts,
  '2026_11_23_1300_media_storage': mediaStorage,
  '2026_11_23_1600_unknown_guide_flags': unknownGuideFlags,
  '2026_11_23_1610_search_diacritics': searchDiacritics,
  '2026_11_23_1500_form_fields_work_log': formFieldsWorkLog,
  '2026_11_23_1510_guide_cache_new_language': guideCacheNewLanguage,
  '2026_11_24_1000_approvals': approvals,
  '2026_11_24_1100_webhooks': webhooks,
  '2026_11_24_1300_periodic_review': periodicReview,
  '2026_11_24_1400_category_stamp': categoryStamp,
  '2026_11_25_0100_courses': courses,
  '2026_11_25_0110_course_assignee_names': courseAssigneeNames,
  '2026_11_25_0200_quizzes': quizzes,
  '2026_11_25_0210_skills': skills,
  '2026_11_25_0220_signoffs': signoffs,
  '2026_11_25_0300_training_modules': trainingModules,
  '2026_11_25_0400_search_title_key': searchTitleKey,
  '2026_11_25_0410_read_stamps': readStamps,
  '2026_11_25_0500_stored_guide_records': storedGuideRecords,
  '2026_11_25_0510_guide_titles_stamp': guideTitlesStamp,
  '2026_11_25_0600_wiki_records': wikiRecords,
  '2026_11_25_0700_search_background_merge': searchBackgroundMerge,
  '2026_11_25_0710_stamps_in_order': stampsInOrder,
  '2026_11_25_0720_stamps_at_commit': stampsAtCommit,
  '2026_11_25_0800_quiz_list_sorts': quizListSorts,
  '2026_11_25_0810_search_titles_stamp': searchTitlesStamp,
  '2026_11_25_0900_search_index_log': searchIndexLog,
  '2026_11_25_0910_dependents_when_required': dependentsWhenRequired,
  '2026_11_26_1300_stored_record_tags': storedRecordTags,
  '2026_11_27_0100_guide_comments_stamp': guideCommentsStamp,
  '2026_11_27_0110_search_title_key_namespace': searchTitleKeyNamespace,
  '2026_11_27_0400_course_reach_stamp': courseReachStamp,
  '2026_11_27_0800_trigger_generic_plans': triggerGenericPlans,
  '2026_11_27_2100_guide_reach_stamp': guideReachStamp,
  '2026_11_28_0100_stamp_shards': stampShards,
  '2026_11_28_1000_image_bookkeeping': imageBookkeeping,
  '2026_11_28_1700_comments_stamp_inserts': commentsStampInserts,
  '2026_11_28_2200_guide_row_stamp': guideRowStamp,
  '2026_12_03_1500_team_owner_index': teamOwnerIndex,
  '2026_12_04_1100_oversight': oversight,
  '2026_12_04_1200_quiz_html_sanitized': quizHtmlSanitized,
  '2026_12_04_1400_token_sessions': tokenSessions,
  '2026_12_04_1000_guide_reader_view': guideReaderView,
  '2026_12_04_1700_audit_log': auditLog,
  '2026_12_04_1600_course_ids': courseIds,
  '2026_12_04_1800_signer_names': signerNames,
  '2026_12_05_0100_rate_limits': rateLimits,
};
