package main

import "strconv"

// The record builders below write one record object of each source into
// g.b. Field order is fixed and every choice comes from the document's
// random stream, in the order written, so a record's bytes depend only on
// the seed, the day, the source and its position.

func commitRecord(g *docGen, i, sec int) {
	w, r := g.w, g.r
	rp := w.repo(r)
	author := w.person(r)
	var ticket string
	if r.chance(45) {
		ticket = w.hotTicket(r)
	}
	g.b = append(g.b, '{')
	g.key("sha")
	g.b = append(g.b, '"')
	g.b = r.appendHex(g.b, 40)
	g.b = append(g.b, '"')
	g.str("repo", rp.URI)
	branch := "main"
	if r.chance(35) {
		branch = "feature/" + slugify(w.voc.contentWord(r)+" "+w.voc.contentWord(r))
	}
	g.str("branch", branch)
	g.key("author")
	g.b = append(g.b, '{')
	g.str("name", author.Name)
	uri := author.URI
	if r.chance(20) {
		uri = author.AliasURI
	}
	g.str("uri", uri)
	g.b = append(g.b, '}')
	g.clock("committed_at", sec)
	g.key("message")
	g.b = append(g.b, '{')
	var subj []byte
	if ticket != "" {
		subj = append(subj, ticket...)
		subj = append(subj, ": "...)
	}
	subj = append(subj, pick(r, verbs)...)
	for range r.between(2, 4) {
		subj = append(subj, ' ')
		subj = append(subj, w.voc.contentWord(r)...)
	}
	g.key("subject")
	g.b = appendJSONBytes(g.b, subj)
	g.prose("body", 1, 5, 12)
	g.b = append(g.b, '}')
	if r.chance(30) {
		g.strs("reviewers", g.people(1, 2))
	}
	g.key("files")
	g.b = append(g.b, '[')
	for k := range 1 + r.intn(10)/7 {
		if k > 0 {
			g.b = append(g.b, ',')
		}
		g.b = append(g.b, `{"path":"`...)
		g.b = append(g.b, pick(r, codeDirs)...)
		g.b = append(g.b, '/')
		g.b = append(g.b, slugify(w.voc.contentWord(r))...)
		g.b = append(g.b, pick(r, codeExts)...)
		g.b = append(g.b, `","add":`...)
		g.b = strconv.AppendInt(g.b, int64(r.intn(200)), 10)
		g.b = append(g.b, `,"del":`...)
		g.b = strconv.AppendInt(g.b, int64(r.intn(80)), 10)
		g.b = append(g.b, '}')
	}
	g.b = append(g.b, ']')
	if ticket != "" {
		g.key("refs")
		g.b = append(g.b, '{')
		g.strs("tickets", []string{ticket})
		g.b = append(g.b, '}')
	}
	g.b = append(g.b, '}')
}

func ticketRecord(g *docGen, i, sec int) {
	w, r := g.w, g.r
	idx := g.tickets[i]
	g.b = append(g.b, '{')
	g.str("key", ticketKey(idx))
	g.str("summary", w.ticketSummary(idx))
	g.str("type", pick(r, ticketTypes))
	g.str("status", pick(r, ticketState))
	g.str("priority", pick(r, priorities))
	g.str("reporter", g.person())
	if r.chance(90) {
		g.str("assignee", g.person())
	} else {
		g.key("assignee")
		g.b = append(g.b, "null"...)
	}
	if r.chance(25) {
		g.strs("watchers", g.people(1, 2))
	}
	g.str("repo", w.repo(r).URI)
	labels := make([]string, r.between(1, 3))
	for k := range labels {
		labels[k] = slugify(w.voc.contentWord(r))
	}
	g.strs("labels", labels)
	g.clock("updated", sec)
	g.prose("description", r.between(1, 2), 5, 10)
	if r.chance(30) {
		g.objects("comments", r.between(1, 2), func() {
			g.str("author", g.person())
			g.clock("at", min(sec+r.intn(600), 86399))
			g.prose("body", 1, 5, 12)
		})
	}
	g.b = append(g.b, '}')
}

func ciRecord(g *docGen, i, sec int) {
	w, r := g.w, g.r
	rp := w.repo(r)
	wf := pick(r, workflows)
	branch := "main"
	if r.chance(25) {
		branch = "release"
	}
	g.b = append(g.b, '{')
	g.key("id")
	g.b = append(g.b, `"run-`...)
	g.b = append(g.b, g.compact...)
	g.b = append(g.b, '-')
	g.b = appendPad(g.b, i, 6)
	g.b = append(g.b, '"')
	// Few workflows, few repositories, mostly one branch: the same title
	// comes back many times a day, as CI titles do.
	g.str("name", wf+" on "+rp.Name+" ("+branch+")")
	g.str("workflow", wf)
	g.str("repo", rp.URI)
	g.str("head_branch", branch)
	g.key("head_sha")
	g.b = append(g.b, '"')
	g.b = r.appendHex(g.b, 40)
	g.b = append(g.b, '"')
	conclusion := "success"
	switch x := r.intn(100); {
	case x < 18:
		conclusion = "failure"
	case x < 25:
		conclusion = "cancelled"
	}
	g.str("conclusion", conclusion)
	g.clock("started_at", sec)
	g.num("duration_s", r.between(40, 1800))
	g.str("triggered_by", g.person())
	g.key("html_url")
	g.b = append(g.b, `"https://ci.acme.test/`...)
	g.b = append(g.b, rp.Owner...)
	g.b = append(g.b, '/')
	g.b = append(g.b, rp.Name...)
	g.b = append(g.b, "/runs/"...)
	g.b = append(g.b, g.compact...)
	g.b = appendPad(g.b, i, 6)
	g.b = append(g.b, '"')
	g.key("jobs")
	g.b = append(g.b, '[')
	n := r.between(1, 3)
	failed := -1
	if conclusion == "failure" {
		failed = r.intn(n)
	}
	for k := range n {
		if k > 0 {
			g.b = append(g.b, ',')
		}
		g.b = append(g.b, '{')
		g.str("name", ciJobs[(k+i)%len(ciJobs)])
		if k == failed {
			g.str("conclusion", "failure")
			g.prose("failure", 1, 6, 12)
		} else {
			g.str("conclusion", "success")
		}
		g.b = append(g.b, '}')
	}
	g.b = append(g.b, ']')
	if r.chance(60) {
		g.prose("summary", 1, 5, 10)
	}
	g.b = append(g.b, '}')
}

func meetingRecord(g *docGen, i, sec int) {
	w, r := g.w, g.r
	g.b = append(g.b, '{')
	g.key("id")
	g.b = append(g.b, `"mtg-`...)
	g.b = append(g.b, g.compact...)
	g.b = append(g.b, '-')
	g.b = appendPad(g.b, i, 5)
	g.b = append(g.b, '"')
	private := false
	var title string
	switch x := r.intn(100); {
	case x < 30:
		title = "Weekly sync: " + w.repo(r).Name
	case x < 45:
		a, b := w.person(r), w.person(r)
		title = "1:1 " + a.First + " / " + b.First
		private = true
	case x < 60:
		title = "Incident review: " + w.hotTicket(r)
	case x < 80:
		title = "Design review: " + w.voc.contentWord(r) + " " + w.voc.contentWord(r)
	default:
		title = titleCase(w.repo(r).Name) + " planning"
	}
	g.str("title", title)
	g.clock("start", sec)
	g.clock("end", min(sec+60*pick(r, []int{25, 30, 45, 60}), 86399))
	g.str("organizer", g.person())
	if private {
		g.strs("attendees", g.people(1, 1))
	} else {
		g.strs("attendees", g.people(2, 5))
	}
	g.prose("notes", r.between(1, 2), 5, 10)
	if r.chance(40) {
		g.key("decisions")
		g.b = append(g.b, '[')
		g.b = appendJSONBytes(g.b, w.voc.appendSentence(nil, r, 6, 12))
		g.b = append(g.b, ']')
	}
	if r.chance(40) {
		g.objects("action_items", r.between(1, 2), func() {
			g.str("owner", g.person())
			g.prose("text", 1, 4, 9)
			g.str("due", firstDay.AddDate(0, 0, g.day+7).Format("2006-01-02"))
		})
	}
	if r.chance(35) {
		g.strs("tickets", []string{w.hotTicket(r)})
	}
	if private {
		g.str("visibility", "private")
	}
	g.b = append(g.b, '}')
}

func mailRecord(g *docGen, i, sec int) {
	w, r := g.w, g.r
	g.b = append(g.b, '{')
	g.key("message_id")
	g.b = append(g.b, '"')
	g.b = append(g.b, mailID(g.compact, i)...)
	g.b = append(g.b, '"')
	g.key("thread_id")
	g.b = append(g.b, `"thr-`...)
	g.b = r.appendHex(g.b, 10)
	g.b = append(g.b, '"')
	var ticket string
	if r.chance(40) {
		idx := w.ticketZ.draw(r)
		ticket = ticketKey(idx)
		g.str("subject", "Re: "+ticket+" "+w.ticketSummary(idx))
	} else {
		g.key("subject")
		g.b = appendJSONBytes(g.b, w.voc.appendWords(nil, r, r.between(3, 7)))
	}
	sent := r.chance(15)
	if !sent && r.chance(55) {
		g.str("from", pick(r, w.externals).URI)
	} else {
		g.str("from", g.person())
	}
	g.strs("to", g.people(1, 2))
	if r.chance(25) {
		g.strs("cc", g.people(1, 2))
	}
	g.clock("date", sec)
	g.prose("snippet", r.between(1, 2), 6, 12)
	if sent {
		g.str("category", "created")
	} else {
		g.str("category", "received")
	}
	if r.chance(20) {
		g.str("visibility", "private")
	}
	if ticket != "" {
		g.strs("tickets", []string{ticket})
	}
	g.strs("labels", []string{"inbox"})
	g.b = append(g.b, '}')
}

// mailID is the message id of mail record i of a day.
func mailID(compact string, i int) string {
	return "msg-" + compact + "-" + string(appendPad(nil, i, 6)) + "@mail.acme.test"
}
