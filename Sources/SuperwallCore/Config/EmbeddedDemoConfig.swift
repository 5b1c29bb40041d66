/// The static config of "Pocket Trainer", a fictional fitness app, as the Superwall API would
/// serve it: what `configure` loads with
/// `configSource: {type: "embedded"}`, and what `make demo` runs on.
///
/// Six campaigns over seven placements: an A/B test at the end of onboarding; a gated paywall
/// for pro workouts behind an audience rule with a 20% holdout; a daily-limit paywall capped
/// at once an hour, whose page asks the app to validate a promo code through the custom
/// callback `validate_promo_code`; a coach upsell for users without the `coach` entitlement;
/// a summer sale reached by a deep link such as `pockettrainer://open?path=promo&offer=summer`
/// (the audience reads query items, which SuperwallKit passes as plain params) or as a
/// win-back at session start; and a placement with no audience at all. Three products grant
/// two entitlements (`pro`, and `coach` on top of it).
enum EmbeddedDemoConfig {
    static let json = #"""
{
  "build_id": "pt-2026-11-20.3",
  "log_level": 10,
  "app_session_timeout_ms": 3600000,
  "toggles": [
    {
      "key": "enable_config_refresh_v2",
      "enabled": true
    },
    {
      "key": "enable_userid_seed",
      "enabled": false
    },
    {
      "key": "disable_verbose_events",
      "enabled": false
    }
  ],
  "disable_preload": {
    "all": false,
    "triggers": [
      "workout_shared"
    ]
  },
  "localization": {
    "locales": [
      {
        "locale": "en"
      },
      {
        "locale": "de"
      },
      {
        "locale": "es"
      }
    ]
  },
  "attribution_options": {
    "apple_search_ads": {
      "enabled": false
    }
  },
  "web2app_config": {
    "entitlements_max_age_ms": 86400000,
    "restore_access_url": "https://pockettrainer.superwall.app/manage"
  },
  "prioritized_campaign_id": "1001",
  "trigger_options": [
    {
      "event_name": "onboarding_complete",
      "trigger_version": "V2",
      "rules": [
        {
          "experiment_group_id": "1001",
          "experiment_id": "2001",
          "expression_cel": null,
          "preload": {
            "behavior": "ALWAYS"
          },
          "variants": [
            {
              "variant_id": "3001",
              "variant_type": "TREATMENT",
              "percentage": 50,
              "paywall_identifier": "onboarding-annual"
            },
            {
              "variant_id": "3002",
              "variant_type": "TREATMENT",
              "percentage": 50,
              "paywall_identifier": "onboarding-monthly-trial"
            }
          ]
        }
      ]
    },
    {
      "event_name": "start_workout",
      "trigger_version": "V2",
      "rules": [
        {
          "experiment_group_id": "1002",
          "experiment_id": "2002",
          "expression_cel": "device.subscriptionStatus != \"ACTIVE\" && params.workout_tier == \"pro\"",
          "preload": {
            "behavior": "IF_TRUE"
          },
          "variants": [
            {
              "variant_id": "3003",
              "variant_type": "HOLDOUT",
              "percentage": 20
            },
            {
              "variant_id": "3004",
              "variant_type": "TREATMENT",
              "percentage": 80,
              "paywall_identifier": "pro-workouts-gated"
            }
          ]
        },
        {
          "experiment_group_id": "1002",
          "experiment_id": "2003",
          "expression_cel": "device.subscriptionStatus != \"ACTIVE\"",
          "preload": {
            "behavior": "NEVER"
          },
          "variants": []
        }
      ]
    },
    {
      "event_name": "daily_limit_reached",
      "trigger_version": "V2",
      "rules": [
        {
          "experiment_group_id": "1003",
          "experiment_id": "2004",
          "expression_cel": "user.workouts_completed >= 3 && !(\"pro\" in device.activeEntitlements)",
          "occurrence": {
            "key": "daily-limit-once-per-hour",
            "max_count": 1,
            "interval": {
              "type": "MINUTES",
              "minutes": 60
            }
          },
          "computed_properties": [
            {
              "type": "PLACEMENTS_IN_DAY",
              "event_name": "daily_limit_reached"
            }
          ],
          "preload": {
            "behavior": "IF_TRUE",
            "requires_re_evaluation": false
          },
          "variants": [
            {
              "variant_id": "3005",
              "variant_type": "TREATMENT",
              "percentage": 100,
              "paywall_identifier": "limit-reached-promo-code"
            }
          ]
        }
      ]
    },
    {
      "event_name": "open_coach_chat",
      "trigger_version": "V2",
      "rules": [
        {
          "experiment_group_id": "1004",
          "experiment_id": "2005",
          "expression_cel": "!(\"coach\" in device.activeEntitlements)",
          "preload": {
            "behavior": "IF_TRUE"
          },
          "variants": [
            {
              "variant_id": "3006",
              "variant_type": "TREATMENT",
              "percentage": 100,
              "paywall_identifier": "coach-upsell-gated"
            }
          ]
        }
      ]
    },
    {
      "event_name": "deepLink_open",
      "trigger_version": "V2",
      "rules": [
        {
          "experiment_group_id": "1005",
          "experiment_id": "2006",
          "expression_cel": "params.path == \"promo\" && params.offer == \"summer\"",
          "preload": {
            "behavior": "NEVER"
          },
          "variants": [
            {
              "variant_id": "3007",
              "variant_type": "TREATMENT",
              "percentage": 100,
              "paywall_identifier": "summer-sale"
            }
          ]
        }
      ]
    },
    {
      "event_name": "session_start",
      "trigger_version": "V2",
      "rules": [
        {
          "experiment_group_id": "1006",
          "experiment_id": "2007",
          "expression_cel": "device.daysSinceInstall >= 7 && device.subscriptionStatus == \"INACTIVE\" && user.isLoggedIn",
          "occurrence": {
            "key": "winback-once",
            "max_count": 1,
            "interval": {
              "type": "INFINITY"
            }
          },
          "preload": {
            "behavior": "IF_TRUE"
          },
          "variants": [
            {
              "variant_id": "3008",
              "variant_type": "HOLDOUT",
              "percentage": 10
            },
            {
              "variant_id": "3009",
              "variant_type": "TREATMENT",
              "percentage": 90,
              "paywall_identifier": "summer-sale"
            }
          ]
        }
      ]
    },
    {
      "event_name": "workout_shared",
      "trigger_version": "V2",
      "rules": []
    }
  ],
  "paywall_responses": [
    {
      "id": "4101",
      "identifier": "onboarding-annual",
      "name": "Onboarding: annual first",
      "cache_key": "ob-annual-v12",
      "build_id": "pt-2026-11-20.3",
      "url": "https://paywalls.pockettrainer.example/onboarding-annual",
      "url_config": {
        "endpoints": [
          {
            "url": "https://paywalls.pockettrainer.example/onboarding-annual",
            "timeout_ms": 15000,
            "percentage": 100
          }
        ],
        "max_attempts": 3
      },
      "paywalljs_event": "W3siZXZlbnRfbmFtZSI6ICJ0ZW1wbGF0ZV9zdWJzdGl0dXRpb25zIiwgInN1YnN0aXR1dGlvbnMiOiBbeyJrZXkiOiAiVGl0bGUiLCAidmFsdWUiOiAiVHJhaW4gc21hcnRlciwgZXZlcnkgZGF5In0sIHsia2V5IjogIlByaW1hcnkgQ1RBIiwgInZhbHVlIjogIlN0YXJ0IDctZGF5IGZyZWUgdHJpYWwifV19XQ==",
      "presentation_style_v3": {
        "type": "FULLSCREEN"
      },
      "presentation_delay": 0,
      "background_color_hex": "#FFFFFF",
      "dark_background_color_hex": "#0B0F14",
      "feature_gating": "NON_GATED",
      "products_v2": [
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.pro.annual"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "primary"
        },
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.pro.monthly"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "secondary"
        }
      ],
      "local_notifications": [],
      "is_scroll_enabled": true,
      "introductory_offer_eligibility": "AUTOMATIC",
      "on_device_cache": "DISABLED",
      "surveys": []
    },
    {
      "id": "4102",
      "identifier": "onboarding-monthly-trial",
      "name": "Onboarding: monthly with trial",
      "cache_key": "ob-monthly-v4",
      "build_id": "pt-2026-11-20.3",
      "url": "https://paywalls.pockettrainer.example/onboarding-monthly-trial",
      "url_config": {
        "endpoints": [
          {
            "url": "https://paywalls.pockettrainer.example/onboarding-monthly-trial",
            "timeout_ms": 15000,
            "percentage": 100
          }
        ],
        "max_attempts": 3
      },
      "paywalljs_event": "W3siZXZlbnRfbmFtZSI6ICJ0ZW1wbGF0ZV9zdWJzdGl0dXRpb25zIiwgInN1YnN0aXR1dGlvbnMiOiBbeyJrZXkiOiAiVGl0bGUiLCAidmFsdWUiOiAiVHJ5IFBybyBmcmVlIGZvciBhIHdlZWsifV19XQ==",
      "presentation_style_v3": {
        "type": "MODAL"
      },
      "presentation_delay": 0,
      "background_color_hex": "#FFFFFF",
      "dark_background_color_hex": "#0B0F14",
      "feature_gating": "NON_GATED",
      "products_v2": [
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.pro.monthly"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "primary"
        }
      ],
      "local_notifications": [],
      "is_scroll_enabled": true,
      "introductory_offer_eligibility": "AUTOMATIC",
      "on_device_cache": "DISABLED",
      "surveys": []
    },
    {
      "id": "4103",
      "identifier": "pro-workouts-gated",
      "name": "Pro workouts (gated)",
      "cache_key": "pro-gated-v7",
      "build_id": "pt-2026-11-20.3",
      "url": "https://paywalls.pockettrainer.example/pro-workouts-gated",
      "url_config": {
        "endpoints": [
          {
            "url": "https://paywalls.pockettrainer.example/pro-workouts-gated",
            "timeout_ms": 15000,
            "percentage": 100
          }
        ],
        "max_attempts": 3
      },
      "paywalljs_event": "W3siZXZlbnRfbmFtZSI6ICJ0ZW1wbGF0ZV9zdWJzdGl0dXRpb25zIiwgInN1YnN0aXR1dGlvbnMiOiBbeyJrZXkiOiAiVGl0bGUiLCAidmFsdWUiOiAiVGhpcyB3b3Jrb3V0IGlzIHBhcnQgb2YgUHJvIn1dfV0=",
      "presentation_style_v3": {
        "type": "DRAWER",
        "height": 70,
        "corner_radius": 20
      },
      "presentation_delay": 0,
      "background_color_hex": "#101820",
      "dark_background_color_hex": "#0B0F14",
      "feature_gating": "GATED",
      "products_v2": [
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.pro.annual"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "primary"
        },
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.pro.monthly"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "secondary"
        }
      ],
      "local_notifications": [
        {
          "notification_type": "TRIAL_STARTED",
          "title": "Your trial ends tomorrow",
          "body": "Keep your streak: Pocket Trainer Pro renews tomorrow.",
          "delay": 518400000
        }
      ],
      "is_scroll_enabled": true,
      "introductory_offer_eligibility": "AUTOMATIC",
      "on_device_cache": "DISABLED",
      "surveys": []
    },
    {
      "id": "4104",
      "identifier": "limit-reached-promo-code",
      "name": "Daily limit: promo code (custom callback validate_promo_code)",
      "cache_key": "limit-promo-v2",
      "build_id": "pt-2026-11-20.3",
      "url": "https://paywalls.pockettrainer.example/limit-reached-promo-code",
      "url_config": {
        "endpoints": [
          {
            "url": "https://paywalls.pockettrainer.example/limit-reached-promo-code",
            "timeout_ms": 15000,
            "percentage": 100
          }
        ],
        "max_attempts": 3
      },
      "paywalljs_event": "W3siZXZlbnRfbmFtZSI6ICJ0ZW1wbGF0ZV9zdWJzdGl0dXRpb25zIiwgInN1YnN0aXR1dGlvbnMiOiBbeyJrZXkiOiAiVGl0bGUiLCAidmFsdWUiOiAiR290IGEgcHJvbW8gY29kZT8ifSwgeyJrZXkiOiAiQ3VzdG9tIENhbGxiYWNrIiwgInZhbHVlIjogInZhbGlkYXRlX3Byb21vX2NvZGUifV19XQ==",
      "presentation_style_v3": {
        "type": "POPUP",
        "height": 60,
        "width": 90,
        "corner_radius": 16
      },
      "presentation_delay": 0,
      "background_color_hex": "#FFF8E7",
      "dark_background_color_hex": "#0B0F14",
      "feature_gating": "GATED",
      "products_v2": [
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.pro.monthly"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "primary"
        }
      ],
      "local_notifications": [
        {
          "notification_type": "TRIAL_STARTED",
          "title": "Your trial ends tomorrow",
          "body": "Keep your streak: Pocket Trainer Pro renews tomorrow.",
          "delay": 518400000
        }
      ],
      "is_scroll_enabled": true,
      "introductory_offer_eligibility": "AUTOMATIC",
      "on_device_cache": "DISABLED",
      "surveys": []
    },
    {
      "id": "4105",
      "identifier": "coach-upsell-gated",
      "name": "Coach chat upsell (gated)",
      "cache_key": "coach-v3",
      "build_id": "pt-2026-11-20.3",
      "url": "https://paywalls.pockettrainer.example/coach-upsell-gated",
      "url_config": {
        "endpoints": [
          {
            "url": "https://paywalls.pockettrainer.example/coach-upsell-gated",
            "timeout_ms": 15000,
            "percentage": 100
          }
        ],
        "max_attempts": 3
      },
      "paywalljs_event": "W3siZXZlbnRfbmFtZSI6ICJ0ZW1wbGF0ZV9zdWJzdGl0dXRpb25zIiwgInN1YnN0aXR1dGlvbnMiOiBbeyJrZXkiOiAiVGl0bGUiLCAidmFsdWUiOiAiVGFsayB0byBhIHJlYWwgY29hY2gifV19XQ==",
      "presentation_style_v3": {
        "type": "MODAL"
      },
      "presentation_delay": 0,
      "background_color_hex": "#F2F7FF",
      "dark_background_color_hex": "#0B0F14",
      "feature_gating": "GATED",
      "products_v2": [
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.coach.monthly"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            },
            {
              "identifier": "coach",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "primary"
        }
      ],
      "local_notifications": [
        {
          "notification_type": "TRIAL_STARTED",
          "title": "Your trial ends tomorrow",
          "body": "Keep your streak: Pocket Trainer Pro renews tomorrow.",
          "delay": 518400000
        }
      ],
      "is_scroll_enabled": true,
      "introductory_offer_eligibility": "AUTOMATIC",
      "on_device_cache": "DISABLED",
      "surveys": []
    },
    {
      "id": "4106",
      "identifier": "summer-sale",
      "name": "Summer sale (deep link and win-back)",
      "cache_key": "summer-v1",
      "build_id": "pt-2026-11-20.3",
      "url": "https://paywalls.pockettrainer.example/summer-sale",
      "url_config": {
        "endpoints": [
          {
            "url": "https://paywalls.pockettrainer.example/summer-sale",
            "timeout_ms": 15000,
            "percentage": 100
          }
        ],
        "max_attempts": 3
      },
      "paywalljs_event": "W3siZXZlbnRfbmFtZSI6ICJ0ZW1wbGF0ZV9zdWJzdGl0dXRpb25zIiwgInN1YnN0aXR1dGlvbnMiOiBbeyJrZXkiOiAiVGl0bGUiLCAidmFsdWUiOiAiU3VtbWVyIHNhbGU6IDQwJSBvZmYgYW5udWFsIn1dfV0=",
      "presentation_style_v3": {
        "type": "FULLSCREEN"
      },
      "presentation_delay": 0,
      "background_color_hex": "#FFE3C2",
      "dark_background_color_hex": "#0B0F14",
      "feature_gating": "NON_GATED",
      "products_v2": [
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.pro.annual"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "primary"
        },
        {
          "store_product": {
            "store": "APP_STORE",
            "product_identifier": "com.pockettrainer.coach.monthly"
          },
          "entitlements": [
            {
              "identifier": "pro",
              "type": "SERVICE_LEVEL"
            },
            {
              "identifier": "coach",
              "type": "SERVICE_LEVEL"
            }
          ],
          "reference_name": "secondary"
        }
      ],
      "local_notifications": [],
      "is_scroll_enabled": true,
      "introductory_offer_eligibility": "AUTOMATIC",
      "on_device_cache": "DISABLED",
      "surveys": []
    }
  ],
  "products_v3": [
    {
      "store_product": {
        "store": "APP_STORE",
        "product_identifier": "com.pockettrainer.pro.monthly"
      },
      "entitlements": [
        {
          "identifier": "pro",
          "type": "SERVICE_LEVEL"
        }
      ]
    },
    {
      "store_product": {
        "store": "APP_STORE",
        "product_identifier": "com.pockettrainer.pro.annual"
      },
      "entitlements": [
        {
          "identifier": "pro",
          "type": "SERVICE_LEVEL"
        }
      ]
    },
    {
      "store_product": {
        "store": "APP_STORE",
        "product_identifier": "com.pockettrainer.coach.monthly"
      },
      "entitlements": [
        {
          "identifier": "pro",
          "type": "SERVICE_LEVEL"
        },
        {
          "identifier": "coach",
          "type": "SERVICE_LEVEL"
        }
      ]
    }
  ]
}
"""#
}
