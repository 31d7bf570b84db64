"""Hand-written free-text cases, development set (``--split cases-dev``): tune on it freely.

Written for issue 37 without reading the extractor (``langchain_tepa/extraction/``,
``memory/ingest.py``, ``memory/claims.py``) or any phrasing split. It holds the dangerous
sentences named in issue 37 and in the sessions' notes ("I drive Tom to school", "I rented a
Fiat 500 for the holiday", "My dog is on a raw meat diet" ...), so that whoever tunes may
read them here; the held-out set (:mod:`~tepa_bench.freetext_cases_heldout`) shares no text
with this one.

Three lines per case (:func:`~tepa_bench.freetext_cases.parse_cases`):
``@area.attribute style | earlier memory``, ``> later memory``,
``? question [relation flag ...]`` (a change's label, ``replaces``, is left out).
"""

from __future__ import annotations

__all__ = ["CHANGES", "KEEP_BOTH", "PROBES"]

CHANGES = """
@home.city explicit | I live in Leeds with my partner.
> We moved to Bristol last month.
? Which city does the user live in?
@sport.gym implicit | I go to PureGym on Mill Road.
> Signed up at BeFit by the station and cancelled PureGym.
? Which gym does the user go to?
@money.bank third_person | User banks with Barclays.
> User now banks with Monzo.
? Which bank does the user use?
@work.team_meeting correction | Our team meeting is on Mondays at 10.
> No, the team meeting is on Tuesday, not Monday.
? What day is the user's team meeting?
@name.preferred request | My name is Samantha but everyone calls me Sammy.
> Please call me Sam from now on.
? What should the assistant call the user?
@work.employer explicit | I work at Deloitte as an analyst.
> I left Deloitte and joined KPMG in January.
? Where does the user work?
@devices.phone explicit | I have an iPhone 12.
> Switched from the iPhone to a Pixel 8.
? What phone does the user have?
@food.diet perfect | I'm vegetarian.
> I've gone fully vegan since the new year.
? What diet does the user follow?
@vehicles.car implicit | I drive a 2015 Ford Focus.
> Finally traded the Focus in for a Kia Niro.
? What car does the user drive?
@drink.coffee casual | Usual coffee: flat white with whole milk.
> ugh, dairy's out, oat flat whites only now
? What is the user's usual coffee order?
@tools.editor bullet | - Editor: VS Code
> - Editor: Zed (moved off VS Code)
? Which code editor does the user use?
@work.manager third_person | The user's manager is Priya Shah.
> The user reports to Daniel Okafor now that Priya has left.
? Who is the user's manager?
@media.music_app explicit | I listen to everything on Spotify.
> I cancelled Spotify and use Apple Music now.
? What music app does the user use?
@health.doctor dated | 2024-02-11: GP is Dr. Hughes at Parkside Surgery.
> 2025-01-20: registered with Dr. Adeyemi at Riverside Medical Centre.
? Who is the user's GP?
@home.landlord implicit | Our landlord is Mr. Patel.
> The flat was sold and Greystone Lettings manages it now.
? Who is the user's landlord?
@family.partner casual | My boyfriend is Jake.
> jake and i broke up a while ago, seeing marco now
? Who is the user dating?
@schedule.wake_time explicit | I wake up at 6:30 on weekdays.
> I no longer get up at 6:30, it's 7:15 since the new job.
? What time does the user wake up?
@money.pension third_person | User's pension is with Aviva.
> User transferred the pension from Aviva to Vanguard.
? Where is the user's pension held?
@accounts.email explicit | My personal email is sam.cole@gmail.com.
> My new personal email is sam@colefamily.net, the Gmail one is gone.
? What is the user's personal email address?
@utilities.energy implicit | Our electricity comes from British Gas.
> We went with Octopus Energy when the fixed deal ended.
? Who supplies the user's electricity?
@home.broadband request | Our broadband is Virgin Media.
> Please note we're on BT Full Fibre now, Virgin is cancelled.
? Who is the user's broadband provider?
@sport.running_club explicit | I run with the Hackney Harriers on Thursdays.
> Changed clubs, I run with Victoria Park Runners now.
? Which running club does the user belong to?
@travel.airline third_person | User usually flies with British Airways.
> User has switched loyalty to Virgin Atlantic.
? Which airline does the user usually fly with?
@education.course perfect | I'm studying for CFA level 1.
> I've passed level 1 and started on CFA level 2.
? Which CFA level is the user studying for?
@work.title dated | Job title (2023): junior designer.
> Job title (2025): senior product designer after the promotion.
? What is the user's job title?
@work.commute casual | bus to work most days, the 38
> cycling to work these days, gave up on the 38
? How does the user get to work?
@devices.laptop bullet | * Laptop: Dell XPS 13
> * Laptop: MacBook Air M3 (the Dell died)
? What laptop does the user use?
@prefs.reply_language request | Please answer me in English.
> Please reply in Spanish from now on, I'm practising.
? Which language should the assistant reply in?
@prefs.temperature_unit correction | I prefer temperatures in Fahrenheit.
> Actually no, give me Celsius, not Fahrenheit.
? Which temperature unit does the user prefer?
@health.medication explicit | I take sertraline 50mg every morning.
> My doctor switched me from sertraline to citalopram.
? Which antidepressant does the user take?
@pets.vet implicit | Our vet is Meadow Vets in Hove.
> The old vet closed, so we registered Biscuit at Brighton Animal Clinic.
? Which vet does the user take the dog to?
@food.cuisine explicit | My favourite cuisine is Thai.
> These days my favourite is Ethiopian food, not Thai.
? What is the user's favourite cuisine?
@social.book_club third_person | User hosts a book club every second Friday.
> User moved the book club to the last Sunday of each month.
? When does the user's book club meet?
@shopping.supermarket implicit | We do the big shop at Tesco.
> Lidl opened round the corner and that's where we shop now.
? Where does the user do the weekly shop?
@family.school perfect | Our daughter goes to St Anne's Primary.
> We've moved our daughter to Greenfield Academy for year 7.
? Which school does the user's daughter go to?
@home.address dated | [2023-06] Address: 14 Elm Grove, Sheffield.
> [2025-02] New address: flat 3, 88 Abbey Road, Sheffield.
? What is the user's address?
@devices.watch casual | wearing a garmin forerunner for runs
> sold the garmin, apple watch ultra does everything now
? What watch does the user wear?
@money.credit_card third_person | User pays with an Amex Gold card.
> User cancelled the Amex and uses a Chase Sapphire card instead.
? Which credit card does the user use?
@tools.browser perfect | I use Chrome for everything.
> I've moved over to Firefox for privacy reasons.
? Which browser does the user use?
@devices.os implicit | My home PC runs Windows 11.
> Wiped the home PC last weekend and put Fedora on it.
? Which operating system does the user's home PC run?
@work.office explicit | I work from the Manchester office.
> I've been transferred to the Birmingham office.
? Which office does the user work from?
@vehicles.insurer third_person | Car insurance: Admiral.
> User's car insurance renewed with Direct Line instead of Admiral.
? Who insures the user's car?
@health.dentist request | My dentist is Smile Studio on King Street.
> Please update my dentist: I go to Bright Dental now.
? Who is the user's dentist?
@sport.climbing_gym casual | boulder at The Arch most weekends
> the arch got too crowded, we boulder at Yonder now
? Where does the user go bouldering?
@schedule.bedtime correction | I go to bed around midnight.
> Sorry, I meant 10:30, not midnight. Early nights now.
? What time does the user go to bed?
@food.restrictions dated | 03/2024 - avoiding gluten on the dietitian's advice.
> 09/2024 - gluten reintroduced, no dietary restrictions anymore.
? Does the user have any dietary restrictions?
@accounts.phone_number explicit | My mobile number is 07700 900123.
> I changed my number, it's 07700 900456 now.
? What is the user's mobile number?
@media.news bullet | News source -> The Guardian
> News source -> the BBC app (stopped reading The Guardian)
? Where does the user get their news?
@travel.home_airport implicit | I always fly out of Gatwick.
> Since the move Stansted is way easier for me.
? Which airport does the user fly out of?
@family.partner_name third_person | User's partner is called Alex.
> User mentioned Alex and they separated; new partner is Robin.
? What is the name of the user's partner?
@drink.beer casual | lager drinker, mostly Peroni
> gone off lager completely, it's IPA or nothing
? What beer does the user drink?
@work.hours explicit | I work Monday to Friday, nine to five.
> I now work a four-day week, Monday to Thursday.
? Which days does the user work?
@money.budget_app perfect | I track spending in YNAB.
> I've ditched YNAB for a plain spreadsheet.
? How does the user track their spending?
@tools.notes_app implicit | I keep all my notes in Evernote.
> Exported everything from Evernote into Obsidian over the weekend.
? Which notes app does the user use?
@prefs.theme request | I like the light theme in apps.
> Please switch everything to dark mode for me, my eyes hurt.
? Which theme does the user prefer?
@health.insurance dated | Jan 2024: health cover through Bupa.
> Mar 2025: health insurance moved to Vitality.
? Who is the user's health insurer?
@garden.allotment explicit | I have an allotment plot at Nunhead.
> I gave up the Nunhead plot and took one at Peckham Rye instead.
? Where is the user's allotment?
@devices.tablet casual | using an old ipad for reading
> the ipad's gone, kindle paperwhite for reading now
? What does the user read on?
@utilities.water third_person | User's water bills come from Thames Water.
> User moved house and now pays Southern Water.
? Who supplies the user's water?
@work.project explicit | I'm leading the checkout redesign project.
> I've handed over the checkout redesign and now lead the loyalty app project.
? Which project does the user lead?
@home.neighbourhood implicit | I live in Clapham.
> Got the keys to our new place in Brixton on Friday.
? Which neighbourhood does the user live in?
@sport.football_team correction | I support Leeds United.
> No, I support Sheffield Wednesday, I never liked Leeds.
? Which football team does the user support?
@travel.loyalty bullet | - Hotel loyalty: Hilton Honors
> - Hotel loyalty: Marriott Bonvoy (Hilton points all spent)
? Which hotel loyalty programme does the user use?
@work.station_ride perfect | I ride a Brompton to the station.
> I've swapped the Brompton for an e-scooter on the station run.
? What does the user ride to the station?
@education.university third_person | User is a student at the University of York.
> User transferred to the University of Glasgow for the final year.
? Which university does the user attend?
@food.breakfast casual | porridge every morning
> breakfast is just eggs on toast now
? What does the user eat for breakfast?
@sport.exercise explicit | I swim three times a week.
> I stopped swimming and play padel three times a week instead.
? What exercise does the user do?
@sport+schedule.workout_time implicit | My workouts are at 6am before work.
> The kids' school run means lunchtime is the only slot I train in now.
? When does the user work out?
@money.savings dated | 2024-05-01 savings account: Marcus by Goldman Sachs.
> 2025-04-12 savings account: Chip (closed Marcus).
? Where does the user keep their savings?
@media.streaming request | We watch most things on Netflix.
> Please remember we cancelled Netflix and only have Disney+ now.
? Which streaming service does the user have?
@devices.headphones third_person | User wears Sony WH-1000XM4 headphones.
> User's headphones are now Bose QC Ultra after the Sonys broke.
? What headphones does the user wear?
@work.salary_day correction | Payday is the 15th of the month.
> Correction: payday is the last working day of the month, not the 15th.
? When does the user get paid?
@home.rent_day explicit | Rent is due on the 1st of each month.
> Rent is now due on the 28th, the landlord changed it.
? When is the user's rent due?
@tools.password_manager implicit | My passwords live in LastPass.
> After the breach I moved all my logins into 1Password.
? Which password manager does the user use?
@hobbies.language_class casual | doing french classes on tuesday nights
> dropped french, took up italian on tuesdays instead
? Which language class does the user attend?
@travel.seat perfect | I always book an aisle seat.
> I've started booking window seats so I can sleep.
? What seat does the user prefer on flights?
@social.volunteering third_person | User volunteers at the Oxfam shop on Saturdays.
> User stopped at Oxfam and now volunteers at the food bank on Saturdays.
? Where does the user volunteer?
@accounts.username bullet | GitHub username: samcole88
> GitHub username: samcole (renamed from samcole88)
? What is the user's GitHub username?
@vehicles.parking dated | (2024) Parks at the NCP on Wellington St.
> (2025) Got a permit for the council car park behind the library.
? Where does the user park?
@food.takeaway explicit | Friday night is always pizza from Domino's.
> We switched Friday takeaway from Domino's to the local Turkish place.
? What does the user get for Friday takeaway?
@devices.work_os request | I use Windows on my work machine.
> Please assume macOS for work questions, IT gave me a Mac.
? Which operating system is on the user's work machine?
@health.glasses implicit | I wear contact lenses every day.
> Had laser eye surgery in May, so no lenses or glasses anymore.
? Does the user wear contact lenses?
@shopping.clothes third_person | User buys most clothes at Uniqlo.
> User mostly buys second-hand clothes on Vinted now.
? Where does the user buy clothes?
@home.heating explicit | We heat the house with an old gas boiler.
> We replaced the gas boiler with a heat pump this winter.
? How does the user heat their home?
@travel.holiday_spot casual | summer holidays = Cornwall every year
> no more cornwall, we do the Algarve every summer now
? Where does the user go on summer holiday?
@work.union perfect | I'm a member of Unite.
> I've left Unite and joined the GMB union.
? Which union is the user a member of?
@education.degree dated | 2022: doing an MSc in data science part-time.
> 2024: finished the MSc, now enrolled in a PhD in statistics.
? What is the user studying?
@drink.tea correction | I drink my tea with sugar.
> Not with sugar anymore, just milk. Please remember that.
? How does the user take their tea?
@devices.smart_speaker implicit | We have an Amazon Echo in the kitchen.
> The Echo went to the charity shop; a Google Nest Mini sits there now.
? Which smart speaker is in the user's kitchen?
@money.accountant third_person | User's accountant is Harris & Co.
> User's tax return is now done by a freelance accountant, Mei Lin.
? Who is the user's accountant?
@hobbies.choir explicit | I sing alto in the community choir.
> I moved from alto to tenor in the choir this term.
? Which part does the user sing in the choir?
@prefs.units_distance request | Use miles when you talk distances with me.
> From now on use kilometres, not miles, please.
? Which distance unit should the assistant use?
@garden.lawn casual | mowing the lawn every weekend, such a chore
> ripped the lawn out, it's a wildflower meadow now
? Does the user have a lawn?
@work.desk bullet | Desk: hot-desking on floor 2
> Desk: fixed desk 4.12 on floor 4 since the reshuffle
? Where does the user sit at work?
@accounts.mobile_carrier implicit | My phone contract is with EE.
> Ported my number to giffgaff when the EE contract ran out.
? Which mobile network is the user on?
@family.nursery third_person | User's son goes to Little Acorns nursery.
> User enrolled their son at Sunflower Day Nursery after Little Acorns closed.
? Which nursery does the user's son attend?
@drink.milk perfect | I drink semi-skimmed milk.
> I've switched to soya milk for good.
? What milk does the user drink?
@sport.tennis_partner casual | play tennis with Mark on sundays
> mark moved away so it's Dev i play tennis with now
? Who does the user play tennis with?
@health.sleep_app dated | 2024-08: tracking sleep with the Oura ring.
> 2025-03: sold the Oura, sleep tracked with the Withings mat now.
? How does the user track their sleep?
@travel.passport explicit | I have a British passport.
> I gave up my British passport and hold an Irish one now.
? Which passport does the user hold?
@tools.shell implicit | I use bash in my terminal.
> Ran chsh and never looked back: zsh with oh-my-zsh.
? Which shell does the user use?
@media.podcast_app request | I listen to podcasts on Spotify.
> Note that podcasts are on Pocket Casts now, not Spotify.
? Which app does the user use for podcasts?
@family.kids_bedtime third_person | User's kids go to bed at 7:30.
> User said the kids' bedtime is 8 now that they're older.
? When do the user's kids go to bed?
@home.cleaner implicit | Maria cleans our house on Wednesdays.
> We found a new cleaner, Joanna, who comes on Wednesdays.
? Who cleans the user's house?
@vehicles.fuel explicit | My car runs on diesel.
> I changed from a diesel car to a fully electric one.
? What fuel does the user's car use?
@social.pub casual | the Red Lion is our local
> red lion shut down, The Crown is our local now
? Which pub is the user's local?
"""

KEEP_BOTH = """
@vehicles.car other_sense | I drive a Honda Jazz.
> I drive Tom to school every morning.
? What car does the user drive? [unrelated]
@vehicles.car_rental temporary | I drive a Toyota Corolla.
> I rented a Fiat 500 for the holiday.
? What car does the user drive? [unrelated temporary]
@home.city temporary | I live in Porto.
> I'm staying in Lisbon until Friday.
? Where does the user live? [unrelated temporary]
@food+pets.diet pet_object | I've been vegetarian since uni.
> My dog is on a raw meat diet.
? What diet does the user follow? [unrelated about_someone_else]
@sport.bikes multi | I own a road bike.
> I just bought a gravel bike.
? What bikes does the user own? [adds]
@home.city_sister other_person | I live in Oslo.
> My sister lives in Madrid.
? Where does the user live? [unrelated about_someone_else]
@home.city_past history | I live in Vienna now.
> I used to live in Rome.
? Where does the user live? [unrelated history]
@devices.phone_plan plan | I use an iPhone 14.
> I might switch to Android next year.
? What phone does the user use? [unrelated hypothetical]
@home+travel.flights other_sense | I live in Bergen.
> I fly to Oslo every month for work.
? Where does the user live? [unrelated]
@vehicles.car_hire other_sense | I drive a Skoda Octavia.
> I rent a car from Hertz when I visit my parents.
? What car does the user drive? [unrelated]
@devices+media.netflix other_sense | I use a ThinkPad laptop.
> I stream Netflix on my laptop in bed.
? What laptop does the user use? [unrelated]
@sport+family.support other_sense | I support Arsenal.
> I support Tom with his dyslexia homework.
? Which football team does the user support? [unrelated]
@sport+work.train other_sense | I train at the Third Space gym.
> I train Tom, our new junior, on the billing system.
? Where does the user train? [unrelated]
@work.hospital multi | I work at Guy's Hospital as a nurse.
> I treat patients at St Mary's on my bank shifts.
? Where does the user work? [adds]
@work.start_time other_sense | I start work at 8.
> I report to work at 9 on Fridays after the school run.
? What time does the user start work? [adds]
@hobbies.languages multi | I speak French.
> I'm learning Japanese as well.
? Which languages does the user speak? [adds]
@hobbies.hobby multi | I play the guitar in the evenings.
> I've taken up pottery on Saturdays too.
? What are the user's hobbies? [adds]
@pets.pets multi | We have a cat called Miso.
> We adopted a rescue greyhound last week.
? What pets does the user have? [adds]
@work+family.brother_job other_person | I work as a teacher.
> My brother is a firefighter.
? What does the user do for a living? [unrelated about_someone_else]
@devices+family.mum_phone other_person | I use a Samsung Galaxy S23.
> My mum just got an iPhone 15.
? What phone does the user use? [unrelated about_someone_else]
@food+family.partner_diet other_person | I eat everything, no restrictions.
> My husband has gone keto.
? Does the user follow a special diet? [unrelated about_someone_else]
@food+pets.cat_food pet_object | I'm allergic to fish.
> The cat only eats salmon pate.
? What is the user allergic to? [unrelated about_someone_else]
@devices.laptop_os pet_object | I use Linux as my main OS.
> The family laptop runs Windows 10.
? Which operating system does the user use? [unrelated about_someone_else]
@prefs+vehicles.car_colour pet_object | My favourite colour is green.
> Our car is silver.
? What is the user's favourite colour? [unrelated about_someone_else]
@work+travel.trip temporary | I work in Edinburgh.
> I'm working from the London office this week.
? Where does the user work? [unrelated temporary]
@drink.dry_january temporary | I drink red wine with dinner.
> Doing dry January, so no wine this month.
? What does the user drink with dinner? [unrelated temporary]
@home.house_sit temporary | Our home is in Cardiff.
> We're house-sitting for friends in Bath over Easter.
? Where is the user's home? [unrelated temporary]
@work.employer_past history | I work at Spotify.
> I worked at Deezer for five years before that.
? Where does the user work? [unrelated history]
@sport.past_sport history | I play hockey.
> Back in school I was a competitive swimmer.
? What sport does the user play? [unrelated history]
@pets.pet_past history | We have a labrador called Poppy.
> We had a hamster when the kids were small.
? What pets does the user have? [unrelated history]
@home.move_plan plan | I live in Croydon.
> We're thinking about moving to Brighton one day.
? Where does the user live? [unrelated hypothetical]
@work.job_plan plan | I'm an accountant at EY.
> I'd love to retrain as a carpenter someday.
? What is the user's job? [unrelated hypothetical]
@food.diet_plan plan | I eat meat.
> I might try going pescatarian for Lent.
? What does the user eat? [unrelated hypothetical]
@hobbies.instruments multi | I play the piano.
> I picked up the ukulele this summer.
? Which instruments does the user play? [adds]
@family.children multi | I have a son, Leo.
> Our daughter Ava was born in March.
? What children does the user have? [adds]
@devices+work.second_phone multi | My personal phone is a Pixel 7.
> Work gave me an iPhone SE for on-call.
? What phone does the user have? [adds]
@media.subscriptions multi | I subscribe to the New York Times.
> I also pay for The Economist now.
? Which newspapers does the user subscribe to? [adds]
@food.cuisines multi | I love Korean food.
> Turns out I really like Georgian food too.
? What food does the user like? [adds]
@tools.editors multi | I write Python in PyCharm.
> For quick edits I use Vim as well.
? Which editors does the user use? [adds]
@work.jobs multi | I work as a paramedic.
> I also do weekend shifts as a barista.
? What jobs does the user have? [adds]
@home+social.friend_city other_person | I live in Glasgow.
> My best friend Hannah moved to Dundee.
? Where does the user live? [unrelated about_someone_else]
@vehicles+family.dad_car other_person | I drive a Volvo XC40.
> Dad finally bought a Tesla.
? What car does the user drive? [unrelated about_someone_else]
@work.colleague_team other_person | I'm on the payments team.
> Kemi moved to the search team.
? Which team is the user on? [unrelated about_someone_else]
@health+pets.dog_vet pet_object | My doctor is Dr. Evans.
> The dog sees Dr. Fox at the vets.
? Who is the user's doctor? [unrelated about_someone_else]
@prefs+home.flat_heating pet_object | I hate the cold.
> The flat has electric storage heaters.
? Does the user like the cold? [unrelated about_someone_else]
@drink.coffee_sense other_sense | I drink espresso.
> I drink to that!
? What coffee does the user drink? [unrelated]
@sport+work.run_sense other_sense | I run 5k every morning.
> I run a small Etsy shop selling prints.
? How far does the user run? [unrelated]
@home.move_sense other_sense | I live in Nottingham.
> I moved my desk next to the window.
? Where does the user live? [unrelated]
@sport+hobbies.play_sense other_sense | I play five-a-side on Wednesdays.
> I play the villain in our theatre group's panto.
? What sport does the user play? [unrelated]
@home+travel.holiday_temp temporary | I live in Reading.
> Off to Tenerife for two weeks tomorrow!
? Where does the user live? [unrelated temporary]
@work+health.crutches temporary | I cycle to work.
> Broke my ankle, so taxis to work until it heals.
? How does the user get to work? [unrelated temporary]
@food.lent_chocolate temporary | Dark chocolate is my weakness.
> Giving up chocolate for Lent.
? What is the user's weakness? [unrelated temporary]
@work.job_history history | I'm a data engineer.
> I started my career as a lab technician.
? What is the user's job? [unrelated history]
@home.childhood history | I live in Cambridge.
> I grew up in Lagos.
? Where does the user live? [unrelated history]
@vehicles.first_car history | I drive a Mazda MX-5.
> My first car was a Nissan Micra.
? What car does the user drive? [unrelated history]
@money.bank_plan plan | I bank with Lloyds.
> Thinking of opening a Monzo account for travel.
? Which bank does the user use? [unrelated hypothetical]
@pets.pet_plan plan | We have two guinea pigs.
> The kids keep begging for a puppy.
? What pets does the user have? [unrelated hypothetical]
@sport.sports multi | I play squash on Mondays.
> I joined a badminton club for Thursdays.
? Which sports does the user play? [adds]
@health.supplements multi | I take vitamin D every day.
> I started taking magnesium at night as well.
? Which supplements does the user take? [adds]
@accounts.emails multi | My work email is sam@acme.io.
> I also have a side-project email, sam@tinyprints.shop.
? What email addresses does the user have? [adds]
@work+family.partner_employer other_person | I work at the BBC.
> My wife works at Channel 4.
? Where does the user work? [unrelated about_someone_else]
"""

PROBES = """
@home.city question | I live in Manchester.
> Should I move to Berlin?
? Where does the user live? [unrelated hypothetical]
@money.bank hedge | I bank with HSBC.
> Maybe I'll switch banks at some point, not sure.
? Which bank does the user use? [unrelated hypothetical]
@work.employer negated | I work at Siemens.
> I'm not leaving Siemens, whatever the rumours say.
? Where does the user work? [unrelated]
@devices.phone joke | I have a Pixel 6.
> If I won the lottery I'd buy a gold iPhone, ha.
? What phone does the user have? [unrelated hypothetical]
@sport.gym reminder | I go to Gymbox in Holborn.
> Please remind me to cancel my gym membership next month.
? Which gym does the user go to? [unrelated hypothetical]
@food.diet instruction | I'm pescatarian.
> Give me a recipe with chicken for my flatmate.
? What diet does the user follow? [unrelated]
@vehicles.car question | I drive a Peugeot 208.
> Is a Polestar 2 worth it?
? What car does the user drive? [unrelated hypothetical]
@drink.coffee opinion | I drink long blacks.
> Cappuccinos are overrated if you ask me.
? What coffee does the user drink? [unrelated]
@media+family.music_app instruction | I use YouTube Music.
> Make me a playlist for Spotify, it's for my sister.
? Which music app does the user use? [unrelated]
@schedule.wake_time hedge | I wake up at 7.
> Might try getting up at 5 like those productivity people.
? What time does the user wake up? [unrelated hypothetical]
@home.landlord negated | Our landlord is Foxtons.
> We didn't switch letting agents in the end.
? Who is the user's landlord? [unrelated]
@tools.editor question | I code in Neovim.
> What does Cursor do better than Neovim?
? Which editor does the user use? [unrelated hypothetical]
@work.title joke | I'm a software engineer.
> Some days I'm basically a professional meeting attendee.
? What is the user's job title? [unrelated]
@health.doctor reminder | My GP is Dr. Morgan.
> Remind me to book a blood test with the practice nurse.
? Who is the user's GP? [unrelated]
@travel.airline opinion | I fly with KLM.
> Ryanair's new seats look awful.
? Which airline does the user fly with? [unrelated]
@name+work.preferred instruction | Call me Jo.
> Write the email as if it's from my manager, Patricia.
? What should the assistant call the user? [unrelated]
@money.pension question | My pension is with Nest.
> How do SIPPs compare to a workplace pension?
? Where is the user's pension? [unrelated hypothetical]
@home.broadband hedge | We're on Sky broadband.
> Hyperoptic might be faster, we'll see.
? Who is the user's broadband provider? [unrelated hypothetical]
@pets.vet negated | We take Luna to Village Vets.
> We never went to the new vet on the high street.
? Which vet does the user use? [unrelated]
@sport.running_club joke | I run with Clapham Chasers.
> My running club is basically a brunch club with extra steps.
? Which running club is the user in? [unrelated]
@food.cuisine question | I love Vietnamese food.
> Any good Peruvian places near Soho?
? What is the user's favourite cuisine? [unrelated hypothetical]
@devices.laptop reminder | I use a Surface Laptop 5.
> Remind me to look at MacBook deals on Black Friday.
? What laptop does the user use? [unrelated hypothetical]
@work.manager instruction | My manager is Karen Liu.
> Draft a thank-you note to my old manager, Steve.
? Who is the user's manager? [unrelated]
@education.university opinion | I study at King's College London.
> UCL's campus is prettier, honestly.
? Where does the user study? [unrelated]
@work.standup question | Standup is at 9:45.
> Would it be weird to ask for standup at 10:30 instead?
? When is the user's standup? [unrelated hypothetical]
@tools.browser negated | I browse with Safari.
> Never tried Arc and not planning to.
? Which browser does the user use? [unrelated]
@media.streaming hedge | We have Amazon Prime Video.
> Could be worth getting Apple TV for that one show.
? Which streaming service does the user have? [unrelated hypothetical]
@sport.football_team joke | I support Everton.
> Supporting Everton is a form of therapy nobody asked for.
? Which team does the user support? [unrelated]
@health.medication reminder | I take levothyroxine each morning.
> Please remind me to collect my prescription on Thursday.
? What medication does the user take? [unrelated]
@drink.tea instruction | I drink green tea.
> Find me a good builder's tea for the office kitchen.
? What tea does the user drink? [unrelated]
@vehicles.insurer question | My car is insured with Aviva.
> Is Admiral cheaper for young drivers?
? Who insures the user's car? [unrelated hypothetical]
@utilities.energy opinion | Our gas and electric are with EDF.
> Octopus has the best app of all the suppliers.
? Who supplies the user's energy? [unrelated]
@shopping.supermarket negated | We shop at Sainsbury's.
> We're not switching to Aldi, the queues are mad.
? Where does the user shop? [unrelated]
@family.partner hedge | My girlfriend is called Chloe.
> Who knows, maybe I'll propose this year.
? What is the name of the user's girlfriend? [unrelated hypothetical]
@family.school question | Our son goes to Oakfield Primary.
> How do people choose a secondary school?
? Which school does the user's son go to? [unrelated hypothetical]
@accounts.email instruction | My email is jo.k@outlook.com.
> Send the summary to my colleague at ben@acme.io.
? What is the user's email address? [unrelated]
@garden.allotment joke | I grow veg on my allotment in Walthamstow.
> The slugs own the allotment, I just pay the rent.
? Where is the user's allotment? [unrelated]
@work.commute reminder | I take the Northern line to work.
> Remind me the Northern line is closed this Saturday.
? How does the user get to work? [unrelated temporary]
@social.pub question | Our local is The Bell.
> Is The Anchor any good for Sunday lunch?
? Which pub is the user's local? [unrelated hypothetical]
@travel.home_airport hedge | I fly from Heathrow.
> Luton could be cheaper next time.
? Which airport does the user fly from? [unrelated hypothetical]
"""
