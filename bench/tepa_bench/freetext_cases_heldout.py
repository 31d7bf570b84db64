"""Hand-written free-text cases, HELD OUT (``--split cases-heldout``): nobody tunes on them.

Whoever changes the extractor, key resolution, the judge's prompt, ``HashingEmbeddings`` or
anything else the free-text benchmark measures does not open this module and does not look at
its scenarios or per-case output: run ``tepa-bench run freetext --split cases-heldout`` at the
end of a piece of work and read its aggregate figures only. Tune on ``cases-dev``
(:mod:`~tepa_bench.freetext_cases_dev`) and the generated development splits instead.

Written for issue 37 without reading the extractor (``langchain_tepa/extraction/``,
``memory/ingest.py``, ``memory/claims.py``) or any phrasing split, and without running any
system on it before the figures in ``docs/benchmarks.md`` were measured. No text is shared with
``cases-dev`` or any generated split, and none of the sentences named in issue 37 or the
sessions' notes is here (they are in ``cases-dev``).

Three lines per case (:func:`~tepa_bench.freetext_cases.parse_cases`):
``@area.attribute style | earlier memory``, ``> later memory``,
``? question [relation flag ...]`` (a change's label, ``replaces``, is left out).
"""

from __future__ import annotations

__all__ = ["CHANGES", "KEEP_BOTH", "PROBES"]

CHANGES = """
@home.city explicit | I'm based in Nottingham.
> Relocated from Nottingham to Newcastle in the summer.
? What city is the user based in?
@work.employer explicit | I'm a nurse at the Royal Infirmary.
> Left the Royal Infirmary for a practice nurse job at Hillside Surgery.
? Where does the user work?
@devices.phone explicit | My phone is a Samsung Galaxy A52.
> I no longer use the Galaxy, I'm on a Nothing Phone 2 now.
? What phone does the user use?
@money.bank explicit | Current account: Santander.
> Switched my current account from Santander to Starling.
? Who does the user have their current account with?
@food.diet explicit | I follow a keto diet.
> Not doing keto anymore, back to eating carbs like a normal person.
? What diet does the user follow?
@vehicles.car explicit | We have a Vauxhall Astra estate.
> We replaced the Astra with a Hyundai Ioniq 5.
? What car does the user have?
@tools.programming_language explicit | My main language at work is Java.
> The team moved from Java to Kotlin, so Kotlin is my main language now.
? What is the user's main programming language?
@sport.yoga explicit | I do yoga at Triyoga Camden.
> I changed studios, it's Yogahome in Stoke Newington these days.
? Which yoga studio does the user go to?
@health.therapist explicit | I see a therapist called Ruth every Thursday.
> I stopped seeing Ruth and started with a new therapist, Dr. Osei.
? Who is the user's therapist?
@travel+home.timezone explicit | I'm on Eastern time.
> Now that I'm in Denver I'm on Mountain time.
? What time zone is the user in?
@hobbies.band explicit | I play bass in a covers band called The Loose Ends.
> Quit The Loose Ends; now playing bass with a jazz trio called Blue Hours.
? Which band does the user play in?
@schedule.lunch explicit | I have lunch at 12:30.
> From this week on lunch is at 1:30, meetings ate the earlier slot.
? When does the user have lunch?
@home.mortgage explicit | Our mortgage is with Nationwide.
> We remortgaged away from Nationwide to Halifax.
? Who is the user's mortgage with?
@prefs.pronouns explicit | My pronouns are she/her.
> My pronouns are they/them now.
? What are the user's pronouns?
@work.mode explicit | I work from home full-time.
> The company ended remote work, I'm in the office four days a week now.
? Does the user work from home?
@media.radio explicit | I listen to Radio 4 in the mornings.
> I swapped Radio 4 for 6 Music for my morning listening.
? What does the user listen to in the mornings?
@sport.gym implicit | I'm a member at The Gym Group on Broad Street.
> Joined Anytime Fitness last month and let the other one lapse.
? Which gym does the user belong to?
@work.employer implicit | I'm a developer at Monzo.
> Accepted the offer from Wise, my first day was Monday.
? Where does the user work?
@home.city implicit | I rent a flat in Cardiff.
> Handed the Cardiff keys back; we're in Swansea near my parents now.
? Where does the user live?
@devices.laptop implicit | My laptop is a Lenovo Yoga.
> Treated myself to a Framework 13 and gave the Yoga to my nephew.
? What laptop does the user have?
@health.dentist implicit | My dentist is Dr. Brennan in Headingley.
> Booked in with Toothfairy Dental now that Dr. Brennan has retired.
? Who is the user's dentist?
@drink.coffee implicit | My go-to coffee is a cortado.
> Caught the matcha bug, haven't had a cortado in months.
? What does the user usually order at the café?
@vehicles.motorbike implicit | I ride a Honda CB500.
> Picked up a Triumph Street Twin and sold the CB500.
? What motorbike does the user ride?
@money.investing implicit | I invest through Hargreaves Lansdown.
> Moved my ISA over to Trading 212 to save on fees.
? Which platform does the user invest through?
@family.partner implicit | I'm engaged to Callum.
> Callum and I called off the engagement in spring.
? Is the user engaged?
@pets.dog_walker implicit | Our dog walker is Becky.
> Becky went back to uni, so Paws on Parade take Rolo out now.
? Who walks the user's dog?
@tools.task_app implicit | I organise my to-dos in Todoist.
> Everything lives in Things 3 since I exported my Todoist projects.
? Which to-do app does the user use?
@shopping.groceries implicit | We get groceries delivered by Ocado.
> Tesco click and collect on Saturdays works out cheaper than Ocado, so that's us now.
? How does the user get their groceries?
@work.school implicit | I teach maths at Westfield High.
> Started as head of maths at Kingsmead School last week.
? Which school does the user teach at?
@devices.console implicit | I game on a PS4.
> Finally got my hands on a PS5 and sold the old console.
? Which games console does the user have?
@home.energy_tariff implicit | We're on a fixed tariff with E.ON.
> Octopus Agile since December, E.ON is history.
? Which energy tariff is the user on?
@work+home.train implicit | I get the 7:42 from Woking to Waterloo.
> Bought a flat in Guildford, so it's the 7:15 from Guildford now.
? Which train does the user take to work?
@health.pharmacy implicit | I get my prescriptions from Boots on the high street.
> My prescriptions go to the Well pharmacy by the surgery since last month.
? Which pharmacy does the user use?
@food+work.lunch implicit | I bring packed lunches to work.
> The canteen reopened and I eat there every day.
? What does the user do for lunch at work?
@home.city third_person | User lives in Bristol.
> User's home city is now Exeter.
? Where does the user live?
@work.title third_person | User is a backend engineer.
> User was promoted to engineering manager.
? What is the user's role?
@devices.phone third_person | The user has a OnePlus 9.
> The user's current phone is an iPhone 15 Pro.
? What phone does the user have?
@money.credit_card third_person | User's main credit card is Barclaycard.
> User now uses a John Lewis Partnership card as the main card.
? Which credit card does the user use most?
@drink.alcohol third_person | User drinks socially, mostly wine.
> User is sober now and doesn't drink alcohol at all.
? Does the user drink alcohol?
@tools.hosting third_person | User deploys side projects on Heroku.
> User now deploys side projects on Fly.io.
? Where does the user deploy side projects?
@health.gp third_person | User's GP practice is Elm Tree Surgery.
> User is now registered at Canal Side Medical Practice.
? Which GP practice is the user registered with?
@social.church third_person | User attends St Luke's church on Sundays.
> User has started attending Hope City Church instead of St Luke's.
? Which church does the user attend?
@sport.race third_person | User is training for a half marathon in Bath.
> User's target race is now the Manchester Marathon.
? What race is the user training for?
@family.childminder third_person | User's childminder is Sandra.
> User has a new childminder, Aisha, as Sandra retired.
? Who is the user's childminder?
@home.country third_person | User lives in Canada.
> User has emigrated to New Zealand.
? Which country does the user live in?
@prefs.answer_length third_person | User prefers detailed answers.
> User now wants short, bullet-point answers.
? How long should answers to the user be?
@work.shift third_person | User works night shifts at the depot.
> User moved to day shifts at the depot.
? Which shifts does the user work?
@accounts.messaging third_person | User's preferred messenger is WhatsApp.
> User prefers Signal over WhatsApp these days.
? Which messaging app does the user prefer?
@vehicles.charging third_person | User charges the car at the Tesco supercharger.
> User had a home charger installed and charges on the drive now.
? Where does the user charge the car?
@media.book third_person | User is reading Middlemarch.
> User finished Middlemarch and is on to The Goldfinch.
? What book is the user reading?
@schedule.piano_lesson correction | My piano lesson is on Wednesday at 5.
> Wait, it's Thursday at 5, not Wednesday. The piano lesson, I mean.
? When is the user's piano lesson?
@name.surname correction | My surname is Kowalski.
> Correction: it's Kowalska, the feminine form. Please fix that.
? What is the user's surname?
@home.postcode correction | My postcode is LS6 2AB.
> Sorry, typo: my postcode is LS6 2AD.
? What is the user's postcode?
@health.allergy correction | I'm allergic to ibuprofen.
> Actually it's aspirin I'm allergic to, ibuprofen is fine.
? Which painkiller is the user allergic to?
@family.anniversary correction | Our wedding anniversary is 12 June.
> Oops, the anniversary is 21 June, I swapped the digits.
? When is the user's wedding anniversary?
@work.manager correction | My line manager is Gareth.
> No, Gareth is my skip-level; my actual manager is Nia.
? Who is the user's line manager?
@travel.flight_date correction | I fly to Singapore on the 14th.
> Correction, the flight to Singapore is on the 15th, not the 14th.
? When does the user fly to Singapore?
@pets.cat_name correction | Our cat is called Mochi.
> Not Mochi, Mocha! Autocorrect.
? What is the user's cat called?
@personal.shoe_size correction | I'm a UK size 9 in shoes.
> Scratch that, I'm a 10 in trainers and boots.
? What shoe size is the user?
@food.spice correction | I can't handle spicy food.
> I got that wrong earlier: I love spicy food, it's coriander I can't stand.
? Does the user like spicy food?
@personal.birthday correction | My birthday is 3 March.
> My birthday is actually 3 May, not March.
? When is the user's birthday?
@work.finish_time correction | I finish work at 5:30.
> Correction: I finish at 4:30 on weekdays, I start early.
? What time does the user finish work?
@home.floor correction | We live on the third floor.
> Sorry, it's the fourth floor, I always miscount.
? Which floor does the user live on?
@hobbies.chess correction | My chess rating is about 1400 on Lichess.
> Correction: my Lichess rating is about 1600 now.
? What is the user's chess rating?
@travel.frequent_flyer correction | My frequent flyer number is BA 48291733.
> Wrong number before, sorry: it's BA 48291377.
? What is the user's frequent flyer number?
@name.preferred request | I'm Katherine.
> Please just call me Kit.
? What should the assistant call the user?
@prefs.reply_language request | You can reply to me in German.
> Please stop replying in German and use English from now on.
? Which language should the assistant use with the user?
@prefs.tone request | I like a formal tone in replies.
> Be more casual with me from now on, drop the formalities.
? What tone should the assistant use with the user?
@prefs.date_format request | Write dates as MM/DD/YYYY for me.
> Please use DD/MM/YYYY from now on, I moved to Ireland.
? Which date format does the user want?
@accounts.email request | Send things to kit.ward@yahoo.com.
> Please use kit@wardstudio.co.uk for everything from now on.
? What email should the assistant use for the user?
@prefs.currency request | Show prices in US dollars.
> Please convert prices to euros for me now.
? Which currency should prices be shown in?
@prefs.code_examples request | Give me code examples in JavaScript.
> Can you switch code examples to TypeScript going forward?
? Which language should code examples be in?
@home+work.deliveries request | Deliveries go to my office on Brewer Street.
> Please send deliveries to my home address now, I'm fully remote.
? Where should the user's deliveries go?
@prefs.weight_unit request | Give weights in pounds.
> Please use kilograms from now on.
? Which weight unit does the user want?
@prefs.summary_time request | Send my daily summary at 8am.
> Move my daily summary to 7am please.
? When should the user's daily summary be sent?
@schedule.free_time request | Don't book me anything on Friday afternoons.
> You can book Friday afternoons again; keep Monday mornings free instead.
? Which time should be kept free in the user's calendar?
@name.title request | Address me as Ms. Reyes in letters.
> Please address me as Dr. Reyes now, I finished my doctorate.
? How should letters address the user?
@food+family.portions request | Give me recipes for two people.
> Please scale recipes for four now, the twins eat proper meals.
? How many people should recipes serve?
@prefs.news_topics request | Keep the news briefing to tech stories.
> Please cover climate news in the briefing instead of tech.
? What should the user's news briefing cover?
@travel.seat request | Book me window seats.
> Please book aisle seats from now on, my knee needs the room.
? What seat should be booked for the user?
@accounts.phone request | My number for texts is +44 7700 900777.
> Please text me on +44 7700 900321 now, the old SIM is dead.
? Which number should the assistant text?
@food.diet perfect | I eat meat most days.
> I've been pescatarian for three months now.
? What diet does the user follow?
@health.smoking perfect | I smoke about ten a day.
> I've quit smoking, eleven weeks and counting.
? Does the user smoke?
@tools.writing perfect | I do my writing in Microsoft Word.
> I've moved all my writing into Scrivener.
? What does the user write in?
@home.flatmate perfect | I share the flat with my friend Dom.
> I've got the flat to myself since Dom moved out.
? Does the user have a flatmate?
@work.employer perfect | I'm a junior architect at Foster + Partners.
> I've set up my own practice, Lane Architects.
? Where does the user work?
@sport.swimming perfect | I swim at the Clissold Leisure Centre.
> I've started swimming at the London Fields Lido instead.
? Where does the user swim?
@hobbies+devices.camera perfect | I shoot on a Canon 5D Mark III.
> I've sold the Canon and shoot everything on a Fujifilm X-T5.
? What camera does the user use?
@money.pay_friends perfect | I pay friends back with PayPal.
> I've been using Monzo's pay-by-link instead of PayPal.
? How does the user pay friends back?
@devices.tv perfect | We have a Samsung smart TV.
> We've upgraded the living room TV to an LG OLED.
? What TV does the user have?
@family.marital perfect | I'm single.
> I've got married! Priya and I tied the knot in Goa.
? Is the user married?
@media.social perfect | I post on Twitter a lot.
> I've deleted Twitter and only post on Bluesky.
? Which social network does the user post on?
@education.spanish perfect | I'm learning Spanish on Duolingo.
> I've swapped Duolingo for a weekly tutor on italki.
? How does the user learn Spanish?
@drink.caffeine perfect | I drink four coffees a day.
> I've cut down to one coffee in the morning.
? How many coffees does the user drink a day?
@health.glasses perfect | I wear glasses for reading.
> I've got varifocals now, so one pair for everything.
? What glasses does the user wear?
@vehicles.licence perfect | I only have a provisional licence.
> I've passed my driving test! First time.
? What driving licence does the user hold?
@work.employer dated | 2023-09-04: started as a paralegal at Clifford Chance.
> 2025-02-17: joined Linklaters as a trainee solicitor.
? Where does the user work?
@home.address dated | 12 Mar 2024 - user's address: 7 Cedar Close, Bath.
> 30 Jan 2025 - user's address: 41 Marlborough Buildings, Bath.
? What is the user's address?
@health.bp_medication dated | [2024-01-05] On amlodipine 5mg for blood pressure.
> [2024-11-20] GP changed the blood pressure tablet to losartan.
? What blood pressure medication does the user take?
@devices.router dated | 2024-04: home router is the Virgin Hub 5.
> 2025-01: router replaced with an Eero mesh system.
? What router does the user have?
@sport.hockey_club dated | (Jan 2024) Plays for Hatfield Hockey Club.
> (Sep 2024) Signed for St Albans Hockey Club.
? Which hockey club does the user play for?
@work.salary dated | 2024: salary £42k.
> 2025: salary £51k after the regrade.
? What is the user's salary?
@home.base dated | 2023-10-01 based in Lisbon for the remote job.
> 2024-10-01 base moved to Valencia.
? Where is the user based?
@vehicles.lease dated | Jan 2024: leasing a Cupra Born.
> Jan 2025: the Cupra went back, leasing a BMW i4 now.
? What car is the user leasing?
@work.team dated | 2024-06-03 - on the data platform team.
> 2025-03-10 - joined the ML infrastructure team.
? Which team is the user on?
@education.evening_course dated | Sept 2024: enrolled in the evening pottery course at City Lit.
> Jan 2025: switched to the life drawing course at City Lit.
? Which course is the user taking at City Lit?
@health.physio dated | 2024-07-12 physio: Mark at Active Physio.
> 2025-01-08 physio: Lena at Back2Health.
? Who is the user's physiotherapist?
@home.insurance dated | 2024 renewal: home insurance with Aviva.
> 2025 renewal: home insurance with LV=.
? Who insures the user's home?
@tools.photo_backup dated | 2023-05 photos backed up to Google Photos.
> 2025-05 photo backups go to iCloud; Google Photos deleted.
? Where does the user back up photos?
@pets.pet_insurance dated | 2024-03: pet insurance with Petplan.
> 2025-03: pet insurance switched to ManyPets.
? Who insures the user's pet?
@schedule+family.school_run dated | Sep 2024 - user does the school run on Mondays and Wednesdays.
> Jan 2025 - user does the school run on Tuesdays and Thursdays.
? Which days does the user do the school run?
@media.newspaper dated | 2024-02 subscribed to The Times.
> 2025-02 The Times cancelled; subscribed to the FT.
? Which newspaper does the user subscribe to?
@devices.phone bullet | - Phone: Google Pixel 7a
> - Phone: iPhone 13 mini (the Pixel was lost on holiday)
? What phone does the user have?
@home.city bullet | - City: Glasgow
> - City: Edinburgh (since May)
? Which city does the user live in?
@work.employer bullet | * Employer: Rolls-Royce
> * Employer: Airbus (left Rolls-Royce)
? Who is the user's employer?
@tools.vpn bullet | VPN: NordVPN
> VPN: Mullvad - NordVPN subscription lapsed
? Which VPN does the user use?
@sport.bike_servicing bullet | Bike servicing -> Evans Cycles
> Bike servicing -> a local mechanic, Spokes & Co
? Where does the user get their bike serviced?
@food.allergies bullet | Allergies: none
> Allergies: tree nuts (diagnosed in January)
? What is the user allergic to?
@tools.font bullet | Preferred editor font: Fira Code
> Preferred editor font: JetBrains Mono
? Which editor font does the user prefer?
@money.grocery_budget bullet | Monthly grocery budget: £400
> Monthly grocery budget: £550 (prices went up)
? What is the user's grocery budget?
@devices+health.tracker bullet | - Tracker: Fitbit Charge 5
> - Tracker: Whoop 4.0; Fitbit retired
? Which fitness tracker does the user wear?
@travel.passport_expiry bullet | Passport expires: 2026-08
> Passport renewed, expires: 2035-03
? When does the user's passport expire?
@education.studies bullet | Education: BSc Physics (in progress)
> Education: BSc Physics, graduated 2025; now doing a PGCE
? What is the user currently studying?
@work.day_rate bullet | Day rate: £450
> Day rate: £525 from April
? What is the user's day rate?
@tools.search bullet | Default search engine: Google
> Default search engine: Kagi
? Which search engine does the user use?
@home.thermostat bullet | Heating controls: Hive
> Heating controls: tado smart thermostat
? What heating controls does the user have?
@drink.water bullet | Water: sparkling, always
> Water: tap water now, gave up the fizzy stuff
? What water does the user drink?
@work.employer casual | work at google these days
> left google lol, joined a tiny startup called Fernway last week
? Where does the user work?
@home.city casual | based in leeds atm
> ok so we did it, we live in york now!!
? Where does the user live?
@devices.earbuds casual | airpods pro are my daily earbuds
> airpods fell down a drain rip, using sony wf-1000xm5 now
? Which earbuds does the user use?
@food.breakfast casual | usually skip breakfast
> started having overnight oats every morning, game changer
? What does the user have for breakfast?
@sport.monday_class casual | spin class at psycle on mondays
> psycle's too pricey, doing hiit at the council gym on mondays instead
? What class does the user do on Mondays?
@hobbies.game casual | addicted to elden ring rn
> finally finished elden ring, baldur's gate 3 has eaten my life now
? What game is the user playing?
@family.dating casual | been seeing this guy Marcus for a bit
> marcus is old news, dating a lovely woman called Imogen now
? Who is the user dating?
@drink.cocktail casual | negroni is my drink
> negronis give me headaches now so i'm an espresso martini person
? What is the user's usual cocktail?
@media.show casual | watching the bear on disney+
> done with the bear, slow horses is my new obsession
? What show is the user watching?
@vehicles.car casual | driving my mum's old polo
> bought my own car finally, a little toyota aygo
? What car does the user drive?
@health.sleep casual | sleeping like 5 hrs a night ugh
> getting a solid 8 hours since the baby started sleeping through
? How much does the user sleep?
@sport+schedule.gym_days casual | gym mon wed fri
> gym's tue thu sat now, work rota changed
? Which days does the user go to the gym?
@shopping.barber casual | get my hair cut at Tony's on the corner
> tony retired so it's the turkish barber by the station now
? Where does the user get their hair cut?
@money.bank casual | monzo for everything
> moved everything to chase uk, better interest
? Which bank does the user use?
@work.commute casual | drive to work, 40 mins each way
> office moved to the city centre so i just walk now
? How does the user get to work?
@hobbies.genre casual | mostly reading fantasy atm
> on a big true crime kick, no fantasy in ages
? What genre does the user read?
"""

KEEP_BOTH = """
@sport+work.bikes multi | I have a Brompton for commuting.
> Just picked up a mountain bike for the trails too.
? What bikes does the user have? [adds]
@hobbies.languages multi | I speak German fluently.
> I've started evening classes in Portuguese.
? Which languages does the user speak? [adds]
@pets.pets multi | We have a border collie named Skye.
> We brought home two kittens on Saturday.
? What pets does the user have? [adds]
@hobbies.hobbies multi | I paint watercolours at weekends.
> Bouldering has become my other big hobby.
? What are the user's hobbies? [adds]
@devices.monitors multi | My desk has a 27-inch Dell monitor.
> Added a portable monitor for the laptop when I travel.
? What monitors does the user have? [adds]
@work.jobs multi | I'm a secondary school music teacher.
> I also tutor piano privately on Saturdays.
? What work does the user do? [adds]
@media.streaming multi | We subscribe to BritBox.
> We added Paramount+ for the Star Trek shows.
? Which streaming services does the user pay for? [adds]
@food.cuisines multi | I love Lebanese food.
> Sichuan food is a new favourite as well.
? What food does the user love? [adds]
@family.children multi | I have twin girls, Rosa and Elena.
> Our son Mateo arrived in October.
? What children does the user have? [adds]
@sport.sports multi | I play netball on Tuesdays.
> Signed up for a Sunday softball league too.
? Which sports does the user play? [adds]
@health.medication multi | I take metformin for diabetes.
> The GP added a statin for my cholesterol.
? What medication does the user take? [adds]
@tools.programming_languages multi | I write most services in Go.
> For data work I use Python as well.
? Which programming languages does the user use? [adds]
@vehicles.vehicles multi | I drive a Ford Ranger for work.
> We bought a Renault Zoe as the family's second car.
? What vehicles does the user have? [adds]
@accounts.socials multi | I'm on Instagram as @lenabakes.
> Started a TikTok for the bakery too, @lenabakes.tok.
? Which social accounts does the user have? [adds]
@hobbies.instruments multi | I play the cello.
> Learning the mandolin on the side.
? Which instruments does the user play? [adds]
@home.property multi | We own a flat in Leith.
> We bought a small cottage on Skye for weekends.
? Where does the user own property? [adds]
@home+family.city other_person | I live in Dublin.
> My brother just moved to Galway.
? Where does the user live? [unrelated about_someone_else]
@work+family.employer other_person | I work at Unilever.
> My husband started at Procter & Gamble this week.
? Where does the user work? [unrelated about_someone_else]
@devices+family.phone other_person | I'm on an iPhone 13.
> Got my dad a Motorola for his birthday.
? What phone does the user have? [unrelated about_someone_else]
@food+home.diet other_person | I eat a Mediterranean diet.
> My flatmate has gone full carnivore, the fridge is all steak.
? What diet does the user follow? [unrelated about_someone_else]
@vehicles+family.car other_person | I drive a Citroën C3.
> My girlfriend drives a Mini Cooper.
? What car does the user drive? [unrelated about_someone_else]
@work+family.title other_person | I'm a staff nurse.
> My sister qualified as a midwife last month.
? What is the user's job? [unrelated about_someone_else]
@money+family.bank other_person | I bank with the Co-op.
> My son opened his first account with Starling.
? Which bank does the user use? [unrelated about_someone_else]
@health+family.gp other_person | My GP is Dr. Sato.
> Mum's new GP is Dr. Reilly.
? Who is the user's GP? [unrelated about_someone_else]
@education+family.university other_person | I'm at the University of Leeds.
> My cousin got into Durham.
? Which university does the user attend? [unrelated about_someone_else]
@sport+family.team other_person | I'm a Celtic supporter, always have been.
> My partner supports Rangers, which is a problem.
? Which team does the user support? [unrelated about_someone_else]
@name+work.name other_person | My name is Oluwaseun, Seun for short.
> My new manager is also called Seun, confusingly.
? What is the user's name? [unrelated about_someone_else]
@work+family.marketing other_person | I work in marketing at Diageo.
> My wife just became head of marketing at Heineken.
? Where does the user work? [unrelated about_someone_else]
@drink+family.coffee other_person | I drink my coffee black.
> Dad takes his coffee with three sugars.
? How does the user take coffee? [unrelated about_someone_else]
@schedule+family.wake other_person | I get up at 6 every day.
> My teenager doesn't get up before noon at weekends.
? When does the user get up? [unrelated about_someone_else]
@prefs+work.reply_language other_person | Reply to me in Dutch.
> My colleague Pieter prefers English, so the team doc is in English.
? Which language should the assistant reply to the user in? [unrelated about_someone_else]
@food+pets.diet pet_object | I'm gluten-free.
> The dog has gone grain-free on the vet's advice.
? What diet does the user follow? [unrelated about_someone_else]
@health+pets.medication pet_object | I take omeprazole every morning.
> The cat is on steroids for her asthma.
? What medication does the user take? [unrelated about_someone_else]
@home+vehicles.caravan pet_object | I live in Brighton.
> Our caravan is parked up in Norfolk for the season.
? Where does the user live? [unrelated about_someone_else temporary]
@devices+family.os pet_object | I use Windows 11.
> The kids' tablet runs Android.
? Which operating system does the user use? [unrelated about_someone_else]
@vehicles.van pet_object | I drive a red Fiat Panda.
> The van is white.
? What car does the user drive? [unrelated about_someone_else]
@health+pets.vet pet_object | My doctor is at Lakeside Surgery.
> Our rabbit's vet is at Lakeside Vets.
? Where is the user's doctor? [unrelated about_someone_else]
@sport+pets.swim pet_object | I swim at Tooting Bec Lido.
> The dog swims in the pond on Hampstead Heath.
? Where does the user swim? [unrelated about_someone_else]
@food+pets.breakfast pet_object | I have toast for breakfast.
> The parrot gets fruit for breakfast.
? What does the user have for breakfast? [unrelated about_someone_else]
@home+garden.heating pet_object | I like the house warm, 21 degrees.
> The greenhouse stays at 12 degrees over winter.
? How warm does the user like the house? [unrelated about_someone_else]
@health+pets.sleep pet_object | I sleep on the left side of the bed.
> The cat sleeps on my pillow every night.
? Which side of the bed does the user sleep on? [unrelated about_someone_else]
@devices+work.laptop pet_object | My laptop is a 2019 MacBook Pro.
> The shop's till laptop is a brand new ThinkPad X1.
? What laptop does the user have? [unrelated about_someone_else]
@name+vehicles.boat pet_object | I'm called Bethan.
> Our boat is called the Bethan May.
? What is the user's name? [unrelated about_someone_else]
@vehicles+family.car other_sense | I drive a Kia Sportage.
> I drive the grandkids to swimming on Saturdays.
? What car does the user drive? [unrelated]
@home+work.city other_sense | I live in Bath.
> I moved the meeting to Thursday.
? Where does the user live? [unrelated]
@work+sport.employer other_sense | I work at Tesco head office.
> I work out at lunchtime most days.
? Where does the user work? [unrelated]
@sport+family.run other_sense | I run marathons.
> I run the parents' WhatsApp group for Year 4.
? What races does the user run? [unrelated]
@sport+family.support other_sense | I support Liverpool.
> I support my wife's decision to go back to uni.
? Which football club does the user support? [unrelated]
@money+work.bank other_sense | I bank with NatWest.
> I bank my overtime hours for a long weekend.
? Which bank does the user use? [unrelated]
@hobbies.play other_sense | I play the trumpet.
> I play Wordle every morning on the bus.
? Which instrument does the user play? [unrelated]
@devices+schedule.phone other_sense | I use a Galaxy Z Flip.
> I use my phone as an alarm clock.
? What phone does the user have? [unrelated]
@drink+work.drink other_sense | I drink oat milk lattes.
> I'm drinking from a firehose at this new job.
? What does the user drink? [unrelated]
@food+money.eat other_sense | I eat vegan.
> Eating into my savings to pay for the course.
? What does the user eat? [unrelated]
@work+health.manage other_sense | I manage the Leeds branch of Halifax.
> I manage my type 1 diabetes with a pump.
? What does the user manage at work? [unrelated]
@home.own other_sense | I own a terraced house in Salford.
> I own up to being terrible at replying to texts.
? What property does the user own? [unrelated]
@travel+family.fly other_sense | I fly with easyJet usually.
> Time flies when the kids are off school.
? Which airline does the user usually fly with? [unrelated]
@devices.os other_sense | I use Linux Mint on my desktop.
> I switch off notifications after 8pm.
? Which operating system does the user have on the desktop? [unrelated]
@work+family.teach other_sense | I teach year 6 at Hollybrook Primary.
> I'm teaching my dad how to use WhatsApp.
? Where does the user teach? [unrelated]
@home+travel+work.city temporary | Home is Leicester.
> I'm in Barcelona for a conference until Thursday.
? Where is the user's home? [unrelated temporary]
@vehicles.car temporary | My car's a Subaru Outback.
> Driving a courtesy Corsa while the Subaru is in the garage.
? What car does the user own? [unrelated temporary]
@work.office temporary | I work at the Canary Wharf office.
> This month I'm covering at the Reading branch.
? Which office does the user work at? [unrelated temporary]
@food.diet temporary | I'm a big meat eater.
> Doing Veganuary this year, so plant-based for January.
? What does the user usually eat? [unrelated temporary]
@devices.phone temporary | I have a Pixel 8 Pro.
> Using an old Nokia while my Pixel is being repaired.
? What phone does the user have? [unrelated temporary]
@drink.weekend temporary | I like a pint of Guinness at the weekend.
> Off the booze for Sober October.
? What does the user drink at the weekend? [unrelated temporary]
@sport+health.running temporary | I run every morning.
> Doctor says no running for six weeks after the knee op.
? What exercise does the user do in the morning? [unrelated temporary]
@home+family.flat temporary | We live in a two-bed flat in Hackney.
> Staying at my in-laws' in Kent while the flat is being rewired.
? Where does the user live? [unrelated temporary]
@sport+travel.gym temporary | I train at David Lloyd Raynes Park.
> Using the hotel gym in Dubai this week.
? Which gym does the user train at? [unrelated temporary]
@work.manager temporary | My manager is Chloe Barnes.
> Chloe's on maternity leave, so I report to Femi until September.
? Who is the user's manager? [unrelated temporary]
@travel+home.timezone temporary | I'm on UK time.
> I'm in Tokyo for two weeks, so nine hours ahead.
? What time zone is the user in normally? [unrelated temporary]
@devices+family.laptop temporary | I work on a MacBook Pro.
> Borrowing my partner's Chromebook for the weekend.
? What laptop does the user work on? [unrelated temporary]
@work.hours temporary | I work nine to five.
> Working late all this week for the product launch.
? What hours does the user work? [unrelated temporary]
@home.city history | I live in Hull.
> I lived in Toronto for most of my twenties.
? Where does the user live? [unrelated history]
@work.employer history | I work for the NHS.
> I was a chef in a past life.
? Who does the user work for? [unrelated history]
@vehicles.car history | I drive a Volkswagen Golf.
> Back in the day I had a Ford Capri.
? What car does the user drive? [unrelated history]
@sport+education.sport history | I play rugby for Bath Amateurs.
> I used to row at university.
? What sport does the user play? [unrelated history]
@food.diet history | I eat a fully vegan diet.
> I was vegetarian for ten years before going vegan.
? What is the user's diet? [unrelated history]
@family.partner history | My partner is Jonah.
> My ex-husband was called Gavin.
? Who is the user's partner? [unrelated history]
@pets.pets history | We have a tortoise called Gerald.
> Growing up we always had spaniels.
? What pets does the user have? [unrelated history]
@devices.phone history | I use an iPhone 15.
> My first phone was a Nokia 3310.
? What phone does the user use? [unrelated history]
@education.university history | I'm doing a master's at Edinburgh.
> I did my undergrad at Bristol.
? Where is the user studying? [unrelated history]
@money.bank history | I bank with First Direct.
> Before that I was with RBS for twenty years.
? Who does the user bank with? [unrelated history]
@hobbies.instrument history | I play drums in a punk band.
> As a kid I did eight years of violin.
? What instrument does the user play? [unrelated history]
@home+work.city plan | I live in Sheffield.
> Might move to Manchester if the job comes through.
? Where does the user live? [unrelated hypothetical]
@devices.laptop plan | I use a Windows laptop.
> Considering a MacBook for my next laptop.
? What laptop does the user use? [unrelated hypothetical]
@work.employer plan | I work at Barclays.
> I've applied for a role at the Bank of England.
? Where does the user work? [unrelated hypothetical]
@vehicles.car plan | I drive a petrol Fiesta.
> Next year I want to go electric, maybe an MG4.
? What car does the user drive? [unrelated hypothetical]
@food.diet plan | I'm an omnivore.
> Planning to try a vegan month in the new year.
? What diet does the user have? [unrelated hypothetical]
@money.bank plan | My current account is with TSB.
> If Chase keeps the 5% rate I'll probably switch.
? Who is the user's current account with? [unrelated hypothetical]
@sport.gym plan | I'm a member of Nuffield Health.
> Thinking about trying CrossFit Southside instead at some point.
? Which gym is the user a member of? [unrelated hypothetical]
@pets.pets plan | We have a corgi.
> We'd love a second dog one day.
? What pets does the user have? [unrelated hypothetical]
@work.title plan | I'm a product manager.
> Hoping to make director by next year.
? What is the user's job title? [unrelated hypothetical]
@tools.editor plan | I use Sublime Text.
> Tempted to give Helix a go.
? Which editor does the user use? [unrelated hypothetical]
@travel.airport plan | I fly from Manchester Airport.
> If the Leeds Bradford route opens we'd fly from there.
? Which airport does the user fly from? [unrelated hypothetical]
"""

PROBES = """
@home.city question | I live in Norwich.
> What's the rent like in Cambridge these days?
? Where does the user live? [unrelated hypothetical]
@devices.phone question | I use a Pixel 7 Pro.
> Is the iPhone 16 camera better than the Pixel's?
? What phone does the user use? [unrelated hypothetical]
@money.bank question | I bank with Metro Bank.
> Does Revolut charge for foreign transfers?
? Which bank does the user use? [unrelated hypothetical]
@work.employer question | I'm a civil engineer at Atkins.
> Should I apply to Jacobs?
? Where does the user work? [unrelated hypothetical]
@vehicles.car question | I drive a Nissan Leaf.
> What's the range on a Tesla Model 3?
? What car does the user drive? [unrelated hypothetical]
@food.diet question | I don't eat meat or fish.
> Is lab-grown meat vegetarian?
? What does the user eat? [unrelated hypothetical]
@sport.club question | I play for Oakwood Cricket Club.
> How do I join a tennis club?
? Which club does the user play for? [unrelated hypothetical]
@tools.browser question | I use Brave.
> Which browser is best for web development?
? Which browser does the user use? [unrelated hypothetical]
@travel.airline question | I usually fly Emirates.
> Is Qatar Airways business class worth it?
? Which airline does the user usually fly? [unrelated hypothetical]
@health.gp question | My GP is Dr. Liang at Oak Lane.
> Can I see a different GP at the same practice?
? Who is the user's GP? [unrelated hypothetical]
@home.landlord hedge | Our landlord is a housing association, Clarion.
> We might buy somewhere in a year or two.
? Who is the user's landlord? [unrelated hypothetical]
@drink.coffee hedge | My usual is an iced americano.
> Maybe I should cut caffeine, not sure.
? What is the user's usual coffee? [unrelated hypothetical]
@work.title hedge | I'm a UX researcher.
> Possibly moving into design ops, nothing decided.
? What is the user's role? [unrelated hypothetical]
@media.music hedge | I use Tidal for music.
> Probably going to try Qobuz at some point.
? Which music service does the user use? [unrelated hypothetical]
@schedule.bedtime hedge | I'm in bed by ten.
> Might start staying up later now the evenings are light.
? When does the user go to bed? [unrelated hypothetical]
@home.broadband hedge | Our internet is Community Fibre.
> Perhaps Starlink if we end up in the countryside.
? Who provides the user's internet? [unrelated hypothetical]
@tools.notes hedge | I take notes in Notion.
> I could see myself going back to paper notebooks.
? Which notes app does the user use? [unrelated hypothetical]
@education.degree hedge | I'm doing an Open University degree in history.
> I may switch to part-time study next year, depending on work.
? What is the user studying? [unrelated hypothetical]
@pets.vet hedge | Our vet is Vets4Pets in Crawley.
> We may try the new vet in town if prices go up again.
? Which vet does the user use? [unrelated hypothetical]
@home.city negated | I live in Aberdeen.
> We're not moving to Inverness after all.
? Where does the user live? [unrelated]
@work.employer negated | I work at Ocado Technology.
> I didn't take the Amazon offer.
? Where does the user work? [unrelated]
@vehicles.car negated | I drive a Dacia Duster.
> Not selling the Duster, it's too useful.
? What car does the user drive? [unrelated]
@food.diet negated | I eat halal.
> I haven't given up meat, don't worry.
? What does the user eat? [unrelated]
@sport.gym negated | I'm at Fitness First in Bayswater.
> Never cancelled Fitness First, still going.
? Which gym does the user go to? [unrelated]
@money.pension negated | My pension is with Scottish Widows.
> I haven't moved the pension anywhere.
? Who is the user's pension with? [unrelated]
@devices.laptop negated | My laptop is an HP Spectre.
> No, I didn't buy the new MacBook in the end.
? What laptop does the user have? [unrelated]
@social.club negated | I'm in the Rotary Club of Harrogate.
> I'm not quitting Rotary, despite what I said last week.
? Which club is the user a member of? [unrelated]
@tools.shell negated | I use fish shell.
> Not going back to zsh, fish is fine.
? Which shell does the user use? [unrelated]
@home.city joke | I live in Swindon.
> Moving to Mars if Swindon's roundabouts get any worse.
? Where does the user live? [unrelated hypothetical]
@work.title joke | I'm a tax adviser.
> My real job title is Chief Spreadsheet Wrangler.
? What is the user's job? [unrelated]
@pets.cat joke | We have a ginger cat called Pumpkin.
> Pumpkin thinks she owns the house, and honestly she does.
? What pet does the user have? [unrelated about_someone_else]
@drink.tea joke | I drink Yorkshire Tea.
> My blood type is Yorkshire Tea at this point.
? What tea does the user drink? [unrelated]
@vehicles.yaris joke | I drive a 2009 Toyota Yaris.
> The Yaris will outlive us all.
? What car does the user drive? [unrelated about_someone_else]
@family.husband joke | My husband is called Rob.
> If Rob mentions golf one more time I'm trading him in for a dog.
? What is the name of the user's husband? [unrelated hypothetical]
@sport.team joke | I support Tottenham.
> Supporting Spurs is my villain origin story.
? Which team does the user support? [unrelated]
@devices.iphone joke | I have an old iPhone 11.
> My phone battery lasts about as long as my patience.
? What phone does the user have? [unrelated]
@home.city instruction | I live in Oxford.
> Find me hotels in Bruges for the weekend.
? Where does the user live? [unrelated]
@food.dairy instruction | I'm dairy-free.
> Write a cheesecake recipe for my mum's party.
? What can't the user eat? [unrelated]
@work.employer instruction | I work at Sky.
> Draft a cover letter for a job at the BBC.
? Where does the user work? [unrelated hypothetical]
@money.bank instruction | I bank with Nationwide.
> Compare Nationwide's savings rates with Marcus for me.
? Which bank does the user use? [unrelated]
@devices.phone instruction | My phone is a Galaxy S22.
> Explain how to set up an iPhone for my grandad.
? What phone does the user have? [unrelated]
@travel.airline instruction | I fly Jet2 for holidays.
> Look up Wizz Air flights to Budapest in May.
? Which airline does the user fly for holidays? [unrelated]
@tools.ide instruction | I write code in IntelliJ.
> Show me the VS Code shortcut for multi-cursor.
? Which IDE does the user write code in? [unrelated]
@prefs.reply_language instruction | I want replies in French.
> Translate this paragraph into English for my boss.
? Which language does the user want replies in? [unrelated]
@name.name instruction | My name is Dmitri.
> Sign the letter off as "The Harper Road residents".
? What is the user's name? [unrelated]
@health.medication reminder | I take propranolol for migraines.
> Remind me to ask the GP about switching to topiramate.
? What does the user take for migraines? [unrelated hypothetical]
@home.broadband reminder | We have Plusnet broadband.
> Remind me the Plusnet contract ends in June.
? Who is the user's broadband provider? [unrelated]
@vehicles.car reminder | I drive a Honda HR-V.
> Please remind me the HR-V's MOT is due on the 3rd.
? What car does the user drive? [unrelated]
@sport.gym reminder | I go to Better Gym in Islington.
> Remind me to freeze my gym membership while I'm travelling.
? Which gym does the user go to? [unrelated temporary]
@work.manager reminder | My manager is Ines.
> Remind me to send Ines the quarterly numbers by Friday.
? Who is the user's manager? [unrelated]
@money.credit_card reminder | I use a Nectar American Express.
> Please remind me to pay off the credit card on the 25th.
? Which credit card does the user use? [unrelated]
@family.school reminder | Our son is at Ravenscroft Primary.
> Remind me about the Ravenscroft parents' evening next Tuesday.
? Which school does the user's son go to? [unrelated]
@pets.vet reminder | Our vet is Castle Vets.
> Please remind me to book Ziggy's booster jab at Castle Vets.
? Which vet does the user use? [unrelated]
@media.streaming opinion | We watch on NOW TV.
> Netflix's new price is daylight robbery.
? Which streaming service does the user have? [unrelated]
@drink.beer opinion | My pint is Guinness.
> Craft lager has got so much better lately.
? What beer does the user drink? [unrelated]
@home.city opinion | I live in Liverpool.
> Manchester's music scene is better, don't tell anyone.
? Where does the user live? [unrelated]
@vehicles.car opinion | I drive a Volvo V60.
> Teslas are ugly inside.
? What car does the user drive? [unrelated]
@food.cuisine opinion | My favourite food is Japanese.
> Korean fried chicken is having a moment, isn't it?
? What is the user's favourite food? [unrelated]
@devices.os opinion | I use macOS.
> Linux on the desktop is finally usable.
? Which operating system does the user use? [unrelated]
@work.employer opinion | I work at PwC.
> Big Four culture isn't for everyone.
? Where does the user work? [unrelated]
"""
